//! A run on an existing, complete DEST: it converts only what SOURCE
//! gained and moves the refs; a DEST made from another SOURCE or with
//! other options is refused unless `--force` starts over.

use super::{assert_sound, convert_cmd, fast_import, history, make_source, reference, snapshot};
use crate::support::git::git;
use crate::support::library::{ConvertOptions, NoProgress, convert};
use crate::support::rehash::run_ok;
use crate::support::repo_files::all_objects;
use crate::support::scratch::scratch_dir;

#[test]
fn incremental_update_converts_only_new_objects_and_moves_refs() {
    let source = make_source("incremental");
    let dest = scratch_dir("incremental-run").join("dest.git");
    let first = convert(&ConvertOptions::new(&source, &dest), &NoProgress).unwrap();
    assert_eq!(first.objects_read, first.objects_listed);

    // Nothing new: nothing read, nothing written.
    let noop = convert(&ConvertOptions::new(&source, &dest), &NoProgress).unwrap();
    assert_eq!((noop.objects_read, noop.packs_written), (0, 0));
    assert_eq!(noop.objects_known, first.objects_listed);

    let before = all_objects(&source);
    fast_import(
        &source,
        &history("main", 12, 4, Some("refs/heads/main^0"), Some("v2")),
    );
    fast_import(
        &source,
        &history("feature", 300, 3, Some("refs/heads/topic"), None),
    );
    git(&source, &["update-ref", "-d", "refs/heads/old"]);
    git(&source, &["tag", "light", "refs/heads/feature"]);
    git(&source, &["symbolic-ref", "HEAD", "refs/heads/feature"]);
    let after = all_objects(&source);
    let new_objects = after.keys().filter(|k| !before.contains_key(*k)).count() as u64;
    assert!(new_objects > 20);

    let second = convert(&ConvertOptions::new(&source, &dest), &NoProgress).unwrap();
    assert_eq!(
        second.objects_read, new_objects,
        "reads only the new objects"
    );
    assert_eq!(second.objects_known, before.len() as u64);
    assert_eq!(second.refs_deleted, 1);
    assert!(!dest.join("refs/heads/old").exists());
    assert!(!dest.join("logs/refs/heads/old").exists());

    let fresh = scratch_dir("incremental-fresh").join("dest.git");
    convert(&ConvertOptions::new(&source, &fresh), &NoProgress).unwrap();
    let expected = snapshot(&fresh);
    assert_sound(&dest, &expected, "incremental update");
    assert_eq!(git(&dest, &["symbolic-ref", "HEAD"]), "refs/heads/feature");
}

#[test]
fn refuses_a_dest_made_from_another_source_or_with_other_options() {
    let source = make_source("mismatch");
    let other = make_source("mismatch-other");
    let dest = scratch_dir("mismatch-run").join("dest.git");
    run_ok(&mut convert_cmd(&source, &dest));
    let out = convert_cmd(&other, &dest).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Another conversion's DEST: the command names the wrong DEST (usage).
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("was converted from") && stderr.contains("--force"),
        "{stderr}"
    );
    let out = convert_cmd(&source, &dest)
        .args(["--compression", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("compression"), "{stderr}");
    // --force starts over from the other source.
    run_ok(convert_cmd(&other, &dest).arg("--force"));
    let expected = reference(&other, "mismatch-ref");
    assert_sound(&dest, &expected, "after --force");
}
