//! DEST is a bare SHA-256 repository that `git fsck --strict` accepts
//! (apart from the fixture's deliberately odd objects, which fail it in the
//! source too), and a `--quiet` run says nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::support::converted::default_conversion;
use crate::support::fixture::default_repo;
use crate::support::git::{git, git_command, git_output};
use crate::support::oracle::OracleMap;
use crate::support::repo_files::pack_files;

#[test]
fn dest_is_a_sha256_repository_that_fsck_accepts() {
    let converted = default_conversion();
    let dest = &converted.dest;
    assert_eq!(git(dest, &["rev-parse", "--show-object-format"]), "sha256");
    assert_eq!(git(dest, &["rev-parse", "--is-bare-repository"]), "true");
    let packs = pack_files(dest);
    assert!(!packs.is_empty(), "DEST has no pack");
    for pack in &packs {
        let idx = pack.with_extension("idx");
        git(dest, &["verify-pack", idx.to_str().expect("utf-8 path")]);
        assert!(
            idx.with_extension("rev").is_file(),
            "{} has no .rev",
            idx.display()
        );
    }
    // The fixture holds deliberately odd trees (zero-padded and group-writable
    // modes, unsorted and duplicate entries) that fsck --strict flags in the
    // source as well; the converted repository must report exactly those.
    let source_issues = fsck_issues(&default_repo().repo_path, None);
    let dest_issues = fsck_issues(dest, Some(&converted.map));
    assert_eq!(source_issues, dest_issues);
    // Everything else is clean.
    let mut ignore = Vec::new();
    for (_, msg_id) in &source_issues {
        ignore.push(format!("fsck.{msg_id}=ignore"));
    }
    let mut cmd = git_command(dest);
    for c in &ignore {
        cmd.args(["-c", c]);
    }
    let out = cmd
        .args(["fsck", "--strict", "--no-dangling"])
        .output()
        .expect("git fsck");
    assert!(
        out.status.success(),
        "fsck --strict failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// (object sha1, fsck message id) pairs reported by `git fsck --strict`.
fn fsck_issues(repo: &Path, map: Option<&OracleMap>) -> BTreeSet<(String, String)> {
    let back: BTreeMap<String, String> = map
        .map(|m| {
            m.iter()
                .map(|(s1, (s256, _))| (s256.clone(), s1.clone()))
                .collect()
        })
        .unwrap_or_default();
    let out = git_output(repo, &["fsck", "--strict", "--no-dangling"]);
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    let mut issues = BTreeSet::new();
    for line in text.lines() {
        // "error in tree <id>: zeroPaddedFilemode: ..." / "warning in tree <id>: ..."
        let Some(rest) = line.split_once(" in ").map(|(_, r)| r) else {
            continue;
        };
        let mut parts = rest.splitn(3, ' ');
        let (_kind, id, msg) = (parts.next(), parts.next(), parts.next());
        let (Some(id), Some(msg)) = (id, msg) else {
            continue;
        };
        let id = id.trim_end_matches(':');
        let msg_id = msg.split(':').next().unwrap_or("").trim().to_string();
        let id = back.get(id).cloned().unwrap_or_else(|| id.to_string());
        issues.insert((id, msg_id));
    }
    issues
}

#[test]
fn summary_mentions_objects_and_refs() {
    let converted = default_conversion();
    // --quiet run: nothing on stderr.
    assert!(
        converted.output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&converted.output.stderr)
    );
}
