//! Never guessing: when both sides gained commits, `export-sha1` refuses
//! and changes nothing (and `convert` refuses a DEST with history of its
//! own); refs MIRROR has and DEST does not are deleted when DEST's map
//! knows their objects (DEST deleted them) and left alone, and reported,
//! when it does not (they are MIRROR's own).

use std::path::Path;

use super::{clone_mirror, export_ok, export_refused, refs, scene};
use crate::support::git::git;
use crate::support::history::commit_file;
use crate::support::rehash::{rehash_convert, rehash_export_text};
use crate::support::repo_files::pack_files;

/// A commit made in the bare MIRROR on top of `parent`.
fn commit_in_mirror(mirror: &Path, parent: &str, message: &str) -> String {
    let tree = git(mirror, &["rev-parse", &format!("{parent}^{{tree}}")]);
    git(mirror, &["commit-tree", &tree, "-p", parent, "-m", message])
}

#[test]
fn both_sides_gaining_commits_is_refused_and_changes_nothing() {
    let scene = scene("export-diverged", &[]);
    let mirror = clone_mirror(&scene, "mirror.git");
    commit_file(&scene.work, "d.txt", "one\n", "made in DEST");
    export_ok(&scene.dest, &mirror, &["--quiet"]);

    commit_file(&scene.work, "d.txt", "two\n", "made in DEST again");
    let theirs = commit_in_mirror(&mirror, "refs/heads/main", "made in MIRROR");
    git(&mirror, &["update-ref", "refs/heads/main", &theirs]);
    let (refs_before, packs_before) = (refs(&mirror), pack_files(&mirror));
    let map_before = rehash_export_text(&scene.dest);

    let message = export_refused(&scene.dest, &mirror, &[]);
    assert!(message.contains("both sides gained commits"), "{message}");
    assert!(
        message.contains(&format!("refs/heads/main = {theirs}")),
        "{message}"
    );
    assert_eq!(refs(&mirror), refs_before);
    assert_eq!(pack_files(&mirror), packs_before, "nothing was written");
    assert_eq!(rehash_export_text(&scene.dest), map_before);
    assert!(
        super::dir_is_empty(&mirror.join("rehash-export/segments")),
        "not even a segment"
    );
}

#[test]
fn mirror_refs_dest_lacks_are_deleted_when_dest_knows_them_and_left_alone_otherwise() {
    let scene = scene("export-mirror-only", &[]);
    let mirror = clone_mirror(&scene, "mirror.git");
    let own = commit_in_mirror(&mirror, "refs/heads/main", "MIRROR's own branch");
    git(&mirror, &["update-ref", "refs/heads/mirror-only", &own]);
    git(
        &mirror,
        &[
            "update-ref",
            "refs/remotes/upstream/main",
            "refs/heads/main",
        ],
    );
    git(&scene.dest, &["branch", "-D", "old"]);
    commit_file(&scene.work, "d.txt", "new\n", "made in DEST");

    let summary = export_ok(&scene.dest, &mirror, &[]);
    assert!(summary.contains("1 moved, 1 deleted"), "{summary}");
    assert!(
        summary.contains("2 ref(s) of MIRROR left alone")
            && summary.contains("refs/heads/mirror-only")
            && summary.contains("refs/remotes/upstream/main"),
        "{summary}"
    );
    let after = refs(&mirror);
    assert!(!after.contains("refs/heads/old "), "{after}");
    assert_eq!(git(&mirror, &["rev-parse", "refs/heads/mirror-only"]), own);
    assert!(after.contains("refs/remotes/upstream/main "), "{after}");
}

#[test]
fn convert_refuses_a_dest_with_history_of_its_own() {
    let scene = scene("export-convert-refused", &[]);
    commit_file(&scene.work, "d.txt", "new\n", "made in DEST");
    let main = git(&scene.dest, &["rev-parse", "refs/heads/main"]);
    let refused = |why: &str| {
        let out = rehash_convert(&scene.source, &scene.dest, &["--quiet"]);
        let message = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{message}");
        assert!(message.contains("has history of its own"), "{message}");
        assert!(message.contains(why), "{message}");
        assert_eq!(git(&scene.dest, &["rev-parse", "refs/heads/main"]), main);
    };
    refused("which no conversion wrote");
    let mirror = clone_mirror(&scene, "mirror.git");
    export_ok(&scene.dest, &mirror, &["--quiet"]);
    refused("export-sha1");
}

/// An export from a DEST nothing was made in records no pair: DEST is
/// still a copy, and `convert` keeps it in line with its SHA-1 primary.
#[test]
fn a_copy_exported_from_still_follows_its_sha1_primary() {
    let scene = scene("export-copy", &[]);
    let mirror = super::empty_mirror(&scene.root);
    export_ok(&scene.dest, &mirror, &["--quiet"]);
    commit_file(&scene.source, "later.txt", "later\n", "made in SOURCE");
    let out = rehash_convert(&scene.source, &scene.dest, &["--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = export_ok(&scene.dest, &mirror, &[]);
    assert!(summary.contains(" 0 new pairs recorded"), "{summary}");
    assert_eq!(refs(&mirror), refs(&scene.source));
}
