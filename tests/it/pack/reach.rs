//! The reachability bitmap and the commit-graph a conversion writes,
//! checked by git itself on the tricky fixture (merges, tags of tags,
//! submodules, unusual headers): `rev-list --test-bitmap` rebuilds each
//! ref's closure by walking and compares it with the stored bitmaps, a
//! bitmap-backed object listing equals a walked one, and the commit-graph
//! is byte for byte the one `git commit-graph write` makes. Both walks
//! ignore `refs/replace/`, as git's own bitmap writer and readers do (a
//! bitmap holds objects as stored).

use std::collections::BTreeSet;

use crate::support::converted::default_conversion;
use crate::support::git::{git, git_output};

#[test]
fn git_finds_the_bitmap_of_every_ref_exact() {
    let dest = &default_conversion().dest;
    let commits = git(
        dest,
        &[
            "for-each-ref",
            "--format=%(objectname)^{commit}",
            "refs/heads",
            "refs/tags",
        ],
    );
    let mut checked = 0;
    for rev in commits.lines() {
        let Some(commit) = git_output(dest, &["rev-parse", "--verify", "-q", rev])
            .status
            .success()
            .then(|| git(dest, &["rev-parse", rev]))
        else {
            continue; // a tag of a tree or a blob
        };
        let out = git_output(
            dest,
            &["--no-replace-objects", "rev-list", "--test-bitmap", &commit],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.ends_with("OK!\n"),
            "{rev}: {stderr}"
        );
        checked += 1;
    }
    assert!(checked > 3, "only {checked} refs checked");
    let listed = |bitmap: bool| -> BTreeSet<String> {
        let mut args = vec![
            "--no-replace-objects",
            "rev-list",
            "--objects",
            "--all",
            "--no-object-names",
        ];
        if bitmap {
            args.push("--use-bitmap-index");
        }
        git(dest, &args).lines().map(str::to_owned).collect()
    };
    assert_eq!(listed(true), listed(false));
}

#[test]
fn the_commit_graph_is_the_one_git_writes() {
    let dest = &default_conversion().dest;
    let ours = std::fs::read(dest.join("objects/info/commit-graph")).expect("a commit-graph");
    let copy = crate::support::scratch::scratch_dir("reach-commit-graph").join("dest.git");
    crate::support::file_tree::copy_dir(dest, &copy);
    std::fs::remove_file(copy.join("objects/info/commit-graph")).unwrap();
    git(&copy, &["commit-graph", "write", "--no-progress"]);
    let gits = std::fs::read(copy.join("objects/info/commit-graph")).unwrap();
    assert!(ours == gits, "the commit-graph differs from git's own");
    git(dest, &["commit-graph", "verify"]);
}

/// A conversion builds both from what its map pass recorded of each
/// object; `repack` reads them back from the pack. The files agree.
#[test]
fn the_recorded_graph_and_the_pack_read_one_give_the_same_files() {
    crate::support::serving::assert_same_as_read_from_the_pack(
        &default_conversion().dest,
        "default",
    );
}
