//! A directory whose height changes: its versions land in different waves
//! of the map pass (a tree is named after its subtrees), so no window
//! holds versions of both heights. SOURCE's own pairing crosses the waves,
//! and the search is offered that base, whose chain is known.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::support::git::git;
use crate::support::history::{Change, imported_changes};
use crate::support::rehash::{rehash_convert_ok, rehash_verify_ok};
use crate::support::repo_files::listed_objects;
use crate::support::scratch::scratch_dir;

/// Commits per phase: enough that each wave is searched on its own, not
/// merged with its neighbours.
const PER_PHASE: usize = 80;

/// `d/` holds 100 files, one edited per commit; then half of them go and
/// `d/x/y/z` comes, and the edits go on. The source is repacked by git, so
/// that its pairing is git's: the larger versions of `d` (height 1) first,
/// the smaller ones (height 3) deltas of them.
fn source() -> PathBuf {
    let file = |n: usize, c: usize| format!("file {n} of d, edit {c}\n{}\n", "x".repeat(40));
    let put = |n: usize, c: usize| Change::Put(format!("d/f{n:03}"), file(n, c));
    let commits: Vec<(String, Vec<Change>)> = (0..2 * PER_PHASE)
        .map(|c| {
            let changes = if c == 0 {
                (0..100).map(|n| put(n, 0)).collect()
            } else if c == PER_PHASE {
                let deep = Change::Put("d/x/y/z".into(), "deep\n".into());
                let gone = (50..100).map(|n| Change::Delete(format!("d/f{n:03}")));
                std::iter::once(deep).chain(gone).collect()
            } else {
                vec![put(c % if c < PER_PHASE { 100 } else { 50 }, c)]
            };
            ("commit\n".to_string(), changes)
        })
        .collect();
    let repo = imported_changes("cross-wave", &commits);
    git(&repo, &["repack", "-adfq"]);
    repo
}

#[test]
fn a_directory_whose_height_changes_is_a_delta_across_its_heights() {
    let src = source();
    let dest = scratch_dir("cross-wave-dest").join("dest.git");
    rehash_convert_ok(&src, &dest, &["--quiet"]);
    git(&dest, &["fsck", "--strict"]);
    rehash_verify_ok(&dest, &src);

    // The versions of `d`, and whether each holds the subtree `x`.
    let deep: HashMap<String, bool> = git(&dest, &["rev-list", "--objects", "--all"])
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(_, path)| *path == "d")
        .map(|(id, _)| {
            let entries = git(&dest, &["ls-tree", id]);
            (id.to_string(), entries.lines().any(|e| e.ends_with("\tx")))
        })
        .collect();
    assert_eq!(deep.values().filter(|&&d| d).count(), PER_PHASE);
    let listed = listed_objects(&dest);
    let across = listed
        .iter()
        .filter(|o| o.kind == "tree")
        .filter(
            |o| match (deep.get(&o.id), o.base.as_ref().and_then(|b| deep.get(b))) {
                (Some(target), Some(base)) => target != base,
                _ => false,
            },
        )
        .count();
    assert!(across >= 1, "no delta of d across heights:\n{listed:#?}");
}
