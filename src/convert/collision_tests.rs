//! A collision flagged anywhere in the pipeline stops the conversion with
//! an error naming the object, its file and the detector's message.
//!
//! No git object built from the public collisions triggers the detector
//! (see `object/collision_hook.rs`), so the hook makes the hasher see the
//! SHAttered bytes in place of one chosen blob; everything else (scan,
//! error, refusal before DEST exists) is the real code path.

use std::path::Path;

use crate::convert::convert;
use crate::convert::error::{ConvertError, CorruptInput};
use crate::convert::options::ConvertOptions;
use crate::object::collision_hook;
use crate::progress::NoProgress;
use crate::test_git::git;

const SHATTERED_1: &[u8] = include_bytes!("../../tests/data/shattered-1.pdf");
/// The plain SHA-1 of the SHAttered PDFs, which the detector reports.
const SHATTERED_SHA1: &str = "38762cf7f55934b34d179ae6a4c80cadccbb7f0a";

/// A repository with an ordinary file and the marker blob; returns the
/// marker's SHA-1.
fn repo_with_marker(dir: &Path, marker: &[u8], packed: bool) -> String {
    git(dir, &["init", "-q"]);
    std::fs::write(dir.join("ordinary.txt"), b"nothing to see\n").unwrap();
    std::fs::write(dir.join("suspect.bin"), marker).unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "add a suspect blob"]);
    if packed {
        git(dir, &["repack", "-adq"]);
    }
    git(dir, &["rev-parse", "HEAD:suspect.bin"])
}

fn assert_collision_stops_the_run(packed: bool) {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("source");
    std::fs::create_dir(&source).unwrap();
    let marker = format!("collision marker, packed={packed}\n").into_bytes();
    let sha1 = repo_with_marker(&source, &marker, packed);
    collision_hook::arm(&marker, SHATTERED_1.to_vec());

    let dest = tmp.path().join("dest.git");
    let err = convert(&ConvertOptions::new(&source, &dest), &NoProgress)
        .expect_err("a collision must stop the conversion");
    let ConvertError::Corrupt(corrupt) = &err else {
        panic!("expected a collision error, got: {err}");
    };
    let CorruptInput::Collision { id, file, detail } = corrupt.as_ref() else {
        panic!("expected a collision error, got: {err}");
    };
    assert_eq!(id.to_hex(), sha1);
    let where_ = if packed { ".pack" } else { &sha1[2..] };
    assert!(file.ends_with(where_), "file {file} should be the store");
    let message = err.to_string();
    for needle in [
        sha1.as_str(),
        file.as_str(),
        "SHA-1 appears to be part of a collision attack",
        SHATTERED_SHA1,
        "collision attack",
    ] {
        assert!(
            message.contains(needle),
            "{needle:?} missing from: {message}"
        );
    }
    assert!(detail.contains(SHATTERED_SHA1), "{detail}");
    assert!(!dest.exists(), "refused before DEST was created");
}

#[test]
fn collision_in_a_pack_stops_the_run_naming_object_and_detector() {
    assert_collision_stops_the_run(true);
}

#[test]
fn collision_in_a_loose_object_stops_the_run_naming_object_and_detector() {
    assert_collision_stops_the_run(false);
}
