//! Replace refs (`git replace`, `git replace --graft`) after conversion:
//! `refs/replace/<sha1>` becomes `refs/replace/<sha256>` naming the
//! translated replacement, so git in DEST shows the same history as git in
//! SOURCE, ids translated through the map, with and without replacements.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::git::git;
use crate::support::history::commit_file;
use crate::support::id_translation::translate_ids;
use crate::support::rehash::{rehash_convert_ok, rehash_export_map};
use crate::support::scratch::scratch_dir;

/// Commits `message` as the content of `file`.
fn commit(repo: &Path, file: &str, message: &str) -> String {
    commit_file(repo, file, &format!("{message}\n"), message)
}

/// `git log` of main, one "<id> <subject>" line per commit.
fn log(repo: &Path, extra: &[&str]) -> String {
    let mut args = extra.to_vec();
    args.extend(["log", "--format=%H%x20%s", "main"]);
    git(repo, &args)
}

#[test]
fn replace_and_graft_refs_give_the_same_history_in_dest() {
    let root = scratch_dir("replace-refs");
    let repo = root.join("repo");
    git(&root, &["init", "-q", "-b", "main", "repo"]);
    let a = commit(&repo, "f", "A");
    let b = commit(&repo, "f", "B");
    commit(&repo, "f", "C");
    let d = commit(&repo, "f", "D");
    // B replaced by another commit with the same parent, and D grafted onto A.
    let b_tree = git(&repo, &["rev-parse", &format!("{b}^{{tree}}")]);
    let other = git(
        &repo,
        &["commit-tree", &b_tree, "-p", &a, "-m", "B replaced"],
    );
    git(&repo, &["replace", &b, &other]);
    git(&repo, &["replace", "--graft", &d, &a]);
    let source_list = git(&repo, &["replace", "-l"]);
    assert_eq!(source_list.lines().count(), 2);

    let dest = root.join("dest.git");
    rehash_convert_ok(&repo, &dest, &["--quiet"]);
    let map = rehash_export_map(&dest);
    let want: BTreeSet<String> = source_list
        .lines()
        .map(|l| translate_ids(&map, l))
        .collect();
    let got: BTreeSet<String> = git(&dest, &["replace", "-l"])
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(got, want);

    // With replacements active: D, A (the graft skips B and C).
    let with = log(&repo, &[]);
    assert_eq!(with.lines().count(), 2, "{with}");
    assert_eq!(log(&dest, &[]), translate_ids(&map, &with));
    // Without them: the real history.
    let without = log(&repo, &["--no-replace-objects"]);
    assert_eq!(without.lines().count(), 4);
    assert_eq!(
        log(&dest, &["--no-replace-objects"]),
        translate_ids(&map, &without)
    );
    // The replacement of B shows when B itself is asked for.
    let b256 = &map[&b].0;
    assert_eq!(
        git(&dest, &["log", "-1", "--format=%s", b256]),
        git(&repo, &["log", "-1", "--format=%s", &b])
    );
    assert_eq!(
        git(&dest, &["log", "-1", "--format=%s", b256]),
        "B replaced"
    );
    git(&dest, &["fsck", "--strict", "--no-progress"]);
}
