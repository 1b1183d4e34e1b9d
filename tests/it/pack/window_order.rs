//! The order the window search meets objects in, seen through the
//! candidate log: with `--no-reuse-deltas` the versions of one directory
//! are searched side by side, whatever delta chains SOURCE stores them in.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::support::git::{git, git_with_input};
use crate::support::rehash::rehash_convert_ok;
use crate::support::scratch::scratch_dir;

/// Directories changed in every commit: more than a chunk of small waves
/// takes, so that versions in different waves would be apart.
const DIRS: usize = 70;
const COMMITS: usize = 12;

/// `DIRS` directories of five files; every commit changes one file of each.
/// git packs it with its default window, pairing each directory's versions.
fn source() -> PathBuf {
    let repo = scratch_dir("window-order").join("src.git");
    git(
        Path::new("."),
        &["init", "-q", "--bare", repo.to_str().expect("utf-8")],
    );
    let mut stream = String::new();
    for c in 0..COMMITS {
        writeln!(stream, "commit refs/heads/main").unwrap();
        writeln!(
            stream,
            "committer C <c@example.invalid> {} +0000",
            1_700_000_000 + c
        )
        .unwrap();
        write!(stream, "data 7\ncommit\n").unwrap();
        for d in 0..DIRS {
            let f = c % 5;
            let body = format!("directory {d}, file {f}, version {c}\n").repeat(8);
            write!(
                stream,
                "M 100644 inline d{d:02}/f{f}.txt\ndata {}\n{body}\n",
                body.len()
            )
            .unwrap();
        }
        stream.push('\n');
    }
    git_with_input(&repo, &["fast-import", "--quiet"], stream.as_bytes());
    git(&repo, &["-c", "pack.threads=1", "repack", "-q", "-adf"]);
    repo
}

#[test]
fn versions_of_a_directory_meet_in_the_window_without_reuse() {
    let src = source();
    let dir = scratch_dir("window-order-dest");
    let log = dir.join("candidates.tsv");
    rehash_convert_ok(
        &src,
        &dir.join("dest.git"),
        &[
            "--quiet",
            "--no-reuse-deltas",
            "--window",
            "10",
            "--candidate-log",
            log.to_str().expect("utf-8"),
        ],
    );
    let text = std::fs::read_to_string(&log).expect("the log");
    let trees: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[1] == "tree")
        .collect();
    let same = trees.iter().filter(|f| f[8] == "same-name").count();
    // Every version of a directory but its first (five files, all written
    // by the fifth commit) can be a delta of another version of it.
    assert!(
        same >= DIRS * (COMMITS - 5),
        "{same} of {} tree deltas against the same directory",
        trees.len()
    );
}
