//! The reachability bitmap a conversion writes, checked by git itself on
//! the tricky fixture (merges, tags of tags, submodules, unusual headers):
//! `rev-list --test-bitmap` rebuilds each ref's closure by walking and
//! compares it with the stored bitmaps, and a bitmap-backed object listing
//! equals a walked one. Both walks ignore `refs/replace/`, as git's own
//! bitmap writer and readers do (a bitmap holds objects as stored).

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
