//! Re-keyed notes map back: `convert --rekey-notes` puts a commit with
//! SHA-256 note paths on top of each translated notes ref. That commit and
//! its trees have no SHA-1, so they are not exported, and MIRROR's notes
//! ref names the translated notes commit they stand on (SOURCE's). Notes
//! added in DEST on top of them cannot be exported, and the run says why.

use super::{clone_mirror, empty_mirror, export_ok, export_refused, refs, scene};
use crate::support::git::git;
use crate::support::repo_files::all_objects;

#[test]
fn rekeyed_notes_map_back_to_the_notes_commit_they_stand_on() {
    let scene = scene("export-rekeyed", &["--rekey-notes"]);
    let source_notes = git(&scene.source, &["rev-parse", "refs/notes/commits"]);
    let rekeyed = git(&scene.dest, &["rev-parse", "refs/notes/commits"]);
    let parent = git(&scene.dest, &["rev-parse", "refs/notes/commits^"]);
    assert_ne!(
        rekeyed, parent,
        "DEST's notes ref names the re-keying commit"
    );

    let clone = clone_mirror(&scene, "clone.git");
    let summary = export_ok(&scene.dest, &clone, &[]);
    assert!(summary.contains("nothing new to write"), "{summary}");
    assert!(summary.contains("created by --rekey-notes"), "{summary}");
    assert_eq!(
        git(&clone, &["rev-parse", "refs/notes/commits"]),
        source_notes
    );

    let empty = empty_mirror(&scene.root);
    export_ok(&scene.dest, &empty, &["--quiet"]);
    assert_eq!(refs(&empty), refs(&scene.source));
    assert_eq!(all_objects(&empty), all_objects(&scene.source));

    git(
        &scene.work,
        &["notes", "add", "-f", "-m", "a note made in DEST", "main~1"],
    );
    let message = export_refused(&scene.dest, &clone, &[]);
    assert!(
        message.contains(&format!("stands on {rekeyed}")),
        "{message}"
    );
    assert!(message.contains("--rekey-notes"), "{message}");
}
