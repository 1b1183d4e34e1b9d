//! `convert --refs`, `--exclude-refs`, `--reachable-only`: DEST holds what
//! the selected refs (and HEAD) reach and nothing else, checked against
//! `git rev-list --objects` of those refs; refusals name the refs that
//! reach what they refuse (`pull_refs.rs`, `reachable_only.rs`); later
//! runs keep, widen or refuse to narrow the selection DEST records
//! (`incremental.rs`); the same in the SHA-256 -> SHA-1 direction
//! (`reverse.rs`).

mod incremental;
mod pull_refs;
mod reachable_only;
mod reverse;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use crate::support::git::assert_fsck as assert_fsck_strict;
use crate::support::git::git;
use crate::support::history::{commit_file, deltified_history};
use crate::support::rehash::rehash_export_text;
use crate::support::scratch::scratch_dir;

/// A repository as a host's mirror holds it: `main` with deltified
/// history and the tag `v1`, a branch `topic`, and `refs/pull/<n>/head`
/// for n in 1..=3 on commits no branch has (each changes a file of
/// `main`'s, so their trees and blobs are delta bases and deltas of
/// `main`'s in the pack `git repack -adf` writes).
pub fn hosted(label: &str) -> PathBuf {
    let source = scratch_dir(label).join("src");
    std::fs::create_dir_all(&source).unwrap();
    deltified_history(&source);
    git(&source, &["branch", "topic", "HEAD~2"]);
    for n in 1..=3 {
        pull_request(&source, n, &format!("main~{n}"), "src/deep/b.txt");
    }
    git(&source, &["repack", "-adfq", "--window=50"]);
    source
}

/// Commits a change to `file` on top of `base` as the head of pull
/// request `n` (`refs/pull/<n>/head`), on no branch; returns the commit.
pub fn pull_request(source: &Path, n: u32, base: &str, file: &str) -> String {
    git(source, &["checkout", "-q", "--detach", base]);
    let old = std::fs::read_to_string(source.join(file)).unwrap_or_default();
    let commit = commit_file(
        source,
        file,
        &format!("{old}pull request {n} changes this\n"),
        &format!("pull request {n}"),
    );
    git(
        source,
        &["update-ref", &format!("refs/pull/{n}/head"), &commit],
    );
    git(source, &["checkout", "-q", "main"]);
    commit
}

/// The names of `repo`'s refs.
pub fn ref_names(repo: &Path) -> BTreeSet<String> {
    git(repo, &["for-each-ref", "--format=%(refname)"])
        .lines()
        .map(str::to_string)
        .collect()
}

/// What `git rev-list --objects` lists for `args` in `repo`: the SHA-1s
/// of what those refs reach.
pub fn reachable(repo: &Path, args: &[&str]) -> BTreeSet<String> {
    let mut cmd = vec!["rev-list", "--objects"];
    cmd.extend(args);
    git(repo, &cmd)
        .lines()
        .map(|line| line[..40].to_string())
        .collect()
}

/// The SHA-1s DEST's map holds.
pub fn mapped(dest: &Path) -> BTreeSet<String> {
    rehash_export_text(dest)
        .lines()
        .map(|line| line[..40].to_string())
        .collect()
}
