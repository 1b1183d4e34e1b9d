//! The order the window search meets objects in, seen through the
//! candidate log: with `--no-reuse-deltas` the versions of one directory
//! are searched side by side, whatever delta chains SOURCE stores them in.

use std::path::PathBuf;

use crate::support::git::git;
use crate::support::history::{Imported, imported_commits};
use crate::support::rehash::rehash_convert_ok;
use crate::support::scratch::scratch_dir;

/// Directories changed in every commit: more than a chunk of small waves
/// takes, so that versions in different waves would be apart.
const DIRS: usize = 70;
const COMMITS: usize = 12;

/// `DIRS` directories of five files; every commit changes one file of each.
/// git packs it with its default window, pairing each directory's versions.
fn source() -> PathBuf {
    let commits: Vec<Imported> = (0..COMMITS)
        .map(|c| {
            let f = c % 5;
            let files = (0..DIRS)
                .map(|d| {
                    let body = format!("directory {d}, file {f}, version {c}\n").repeat(8);
                    (format!("d{d:02}/f{f}.txt"), body)
                })
                .collect();
            ("commit\n".to_string(), files)
        })
        .collect();
    let repo = imported_commits("window-order", &commits);
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
