//! An export into an empty SHA-1 repository writes the whole history: for
//! a DEST nothing was made in, MIRROR then holds exactly SOURCE's refs and
//! objects; with new history, the same as an export into a clone of
//! SOURCE, which gets only what it lacks (not even a new object it has
//! loose). An object whose SHA-1 form cannot be recovered from its SHA-256
//! form is refused by name, and MIRROR is left as it was.

use super::{
    assert_fsck, clone_mirror, empty_mirror, export_cmd, export_ok, export_refused, refs, scene,
};
use crate::support::converted::default_conversion;
use crate::support::file_tree::copy_dir;
use crate::support::git::{git, git_with_input};
use crate::support::history::commit_file;
use crate::support::repo_files::{all_objects, pack_files};
use crate::support::scratch::scratch_dir;

#[test]
fn an_empty_mirror_gets_sources_refs_and_objects_back() {
    let scene = scene("export-empty", &[]);
    let mirror = empty_mirror(&scene.root);
    let summary = export_ok(&scene.dest, &mirror, &[]);
    assert!(summary.contains(" 0 new pairs recorded"), "{summary}");
    assert_eq!(refs(&mirror), refs(&scene.source));
    assert_eq!(
        git(&mirror, &["symbolic-ref", "HEAD"]),
        git(&scene.source, &["symbolic-ref", "HEAD"])
    );
    assert_eq!(all_objects(&mirror), all_objects(&scene.source));
    assert_fsck(&mirror);
    assert_eq!(pack_files(&mirror).len(), 1, "one pack");

    let again = export_ok(&scene.dest, &mirror, &[]);
    assert!(again.contains("nothing new to write"), "{again}");

    // --json: one line on stdout, the class done and what was written.
    let out = export_cmd(&scene.dest, &mirror, &["--quiet", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["command"], "export-sha1");
    assert_eq!(report["status"], "done");
    assert_eq!(report["exit_code"], 0);
    assert_eq!(report["result"]["objects_written"], 0, "{report}");
    assert_eq!(report["error"], serde_json::Value::Null);
}

#[test]
fn new_history_exported_into_an_empty_mirror_equals_one_exported_into_a_clone() {
    let scene = scene("export-empty-new", &[]);
    commit_file(&scene.work, "new.txt", "new\n", "made in DEST");
    git(&scene.work, &["tag", "-a", "-m", "after the move", "v9"]);
    git(&scene.dest, &["branch", "-D", "old"]);
    let clone = clone_mirror(&scene, "clone.git");
    // The clone already has the new blob, loose: it is not written again.
    git_with_input(&clone, &["hash-object", "-w", "--stdin"], b"new\n");
    let summary = export_ok(&scene.dest, &clone, &[]);
    assert!(summary.contains("exported: 3 objects ("), "{summary}");
    assert!(summary.contains("4 new pairs recorded"), "{summary}");
    assert!(!summary.contains("blobs"), "{summary}");
    // The second export finds the pairs the first one recorded.
    let empty = empty_mirror(&scene.root);
    let summary = export_ok(&scene.dest, &empty, &[]);
    assert!(summary.contains(" 0 new pairs recorded"), "{summary}");
    assert_eq!(refs(&empty), refs(&clone));
    assert_eq!(all_objects(&empty), all_objects(&clone));
    assert_fsck(&empty);
    assert_fsck(&clone);
}

/// The fixture's tag whose signature lacks its final newline translates to
/// SHA-256 as git does, but not back (docs/translation.md, "Round trips"):
/// only a MIRROR that has it can be kept in sync.
#[test]
fn an_object_whose_sha1_form_is_not_recoverable_is_refused_by_name() {
    let converted = default_conversion();
    let dir = scratch_dir("export-irreversible");
    let dest = dir.join("dest.git");
    copy_dir(&converted.dest, &dest);
    let mirror = empty_mirror(&dir);
    let message = export_refused(&dest, &mirror, &[]);
    assert!(message.contains("cannot be written back"), "{message}");
    assert!(message.contains("Round trips"), "{message}");
    let named = converted
        .map
        .values()
        .any(|(sha256, _)| message.contains(sha256.as_str()));
    assert!(named, "the message names no object of DEST: {message}");
    assert_eq!(refs(&mirror), "");
    assert!(pack_files(&mirror).is_empty());
}

/// The export reads MIRROR's own object directory and updates files refs
/// under git's locks: a MIRROR that borrows objects, or keeps its refs in
/// reftable, is refused by name before anything is written.
#[test]
fn a_mirror_with_alternates_or_reftable_refs_is_refused() {
    let scene = scene("export-mirror-kinds", &[]);
    let borrowing = scene.root.join("borrowing.git");
    git(
        &scene.root,
        &[
            "clone",
            "-q",
            "--bare",
            "--shared",
            scene.source.to_str().unwrap(),
            borrowing.to_str().unwrap(),
        ],
    );
    let message = export_refused(&scene.dest, &borrowing, &[]);
    assert!(message.contains("borrows objects from"), "{message}");
    let reftable = scene.root.join("reftable.git");
    git(
        &scene.root,
        &[
            "init",
            "-q",
            "--bare",
            "--ref-format=reftable",
            reftable.to_str().unwrap(),
        ],
    );
    let message = export_refused(&scene.dest, &reftable, &[]);
    assert!(message.contains("reftable"), "{message}");
    assert!(pack_files(&reftable).is_empty(), "nothing may be written");
}
