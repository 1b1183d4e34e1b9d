//! A kill in the middle of one long batch of the scan (a delta tree of
//! many versions of one file, which no batch boundary can cut) keeps what
//! the batch had recorded by then: the scan makes it durable as it goes,
//! and the resumed run checks only the rest.

use std::path::{Path, PathBuf};

use super::{
    assert_identical_artifacts, assert_sound, convert_cmd, convert_cmd_with_summary, fast_import,
    killed, reference_with_artifacts,
};
use crate::support::git::git;
use crate::support::rehash::run_ok;
use crate::support::scratch::scratch_dir;

/// Every object of the pack in one batch, and a durable record of what
/// was scanned every few objects.
fn one_batch(mut cmd: std::process::Command) -> std::process::Command {
    cmd.env("GIT_REHASH_TEST_SCAN_BATCH_OBJECTS", "1000000")
        .env("GIT_REHASH_TEST_SCAN_FLUSH_OBJECTS", "6");
    cmd
}

/// 40 versions of one file, each a line longer, repacked so that they are
/// one delta tree.
fn versions_of_one_file(label: &str) -> PathBuf {
    let repo = scratch_dir(label).join("src.git");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "--bare", "-q", "-b", "main"]);
    let mut stream = String::new();
    let mut body = String::new();
    for i in 0..40 {
        body += &format!("line {i} of a file that grows by one line a commit\n");
        stream += &format!(
            "commit refs/heads/main\ncommitter C O Mitter <c@example.invalid> {} +0000\ndata <<EOT\nversion {}\nEOT\nM 100644 inline notes.txt\ndata {}\n{body}\n",
            1_700_000_000 + i,
            i,
            body.len()
        );
    }
    fast_import(&repo, &stream);
    git(&repo, &["repack", "-adfq", "--window=50", "--depth=50"]);
    repo
}

fn restored(stderr: &str) -> Option<u64> {
    let note = stderr
        .lines()
        .find(|l| l.contains("objects were scanned by the interrupted run"))?;
    note.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_kill_inside_one_long_batch_keeps_what_it_had_scanned() {
    let source = versions_of_one_file("scan-part");
    let (expected, artifacts) = reference_with_artifacts(&source, "scan-part-ref");
    let total = 40 * 3;
    let dest: &Path = &scratch_dir("scan-part-run").join("dest.git");
    let out = one_batch(convert_cmd(&source, dest))
        .env("GIT_REHASH_TEST_KILL_AT", "scan-part:3")
        .output()
        .unwrap();
    assert!(killed(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run_ok(&mut one_batch(convert_cmd_with_summary(&source, dest)));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kept = restored(&stderr).unwrap_or_else(|| panic!("no restored objects: {stderr}"));
    assert!(
        (18..total).contains(&kept),
        "{kept} of {total} objects restored: {stderr}"
    );
    assert_sound(dest, &expected, "resumed inside a batch of the scan");
    assert_identical_artifacts(dest, &artifacts, "resumed inside a batch of the scan");
}
