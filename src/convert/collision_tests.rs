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
use crate::testing::git::git;

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

/// Converting from SHA-256, a SHA-1 name is computed for every object: a
/// blob whose SHA-1 form shows an attack is refused by its SHA-256 name
/// before DEST exists, and a commit, named by the map pass, after DEST was
/// created, which the refusal then removes.
#[test]
fn a_sha1_form_that_shows_a_collision_stops_a_conversion_from_sha256() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("source");
    std::fs::create_dir(&source).unwrap();
    git(&source, &["init", "-q", "--object-format=sha256"]);
    git(
        &source,
        &["config", "extensions.compatObjectFormat", "sha1"],
    );
    let marker = b"collision marker, converting from sha256\n";
    let blob = repo_with_marker(&source, marker, true);
    collision_hook::arm(marker, SHATTERED_1.to_vec());
    let dest = tmp.path().join("dest.git");
    let err = convert(&ConvertOptions::new(&source, &dest), &NoProgress)
        .expect_err("a collision must stop the conversion");
    let message = err.to_string();
    for needle in [blob.as_str(), "named in sha1", SHATTERED_SHA1, ".pack"] {
        assert!(
            message.contains(needle),
            "{needle:?} missing from: {message}"
        );
    }
    assert!(!dest.exists(), "refused before DEST was created");

    // A commit whose SHA-1 form, as git's compat mode gives it, shows one.
    let clean = tmp.path().join("clean");
    std::fs::create_dir(&clean).unwrap();
    git(&clean, &["init", "-q", "--object-format=sha256"]);
    git(&clean, &["config", "extensions.compatObjectFormat", "sha1"]);
    let clean_commit = {
        std::fs::write(clean.join("ordinary.txt"), b"nothing to see\n").unwrap();
        git(&clean, &["add", "-A"]);
        git(&clean, &["commit", "-q", "-m", "a plain commit"]);
        let sha1 = git(
            &clean,
            &["rev-parse", "--output-object-format=sha1", "HEAD"],
        );
        let body = crate::testing::git::run(
            crate::testing::git::git_command(&clean).args(["cat-file", "commit", &sha1]),
        );
        collision_hook::arm(format!("{body}\n").as_bytes(), SHATTERED_1.to_vec());
        git(&clean, &["rev-parse", "HEAD"])
    };
    let dest = tmp.path().join("dest-commit.git");
    let err = convert(&ConvertOptions::new(&clean, &dest), &NoProgress)
        .expect_err("a collision in a commit's SHA-1 form must stop the conversion");
    let message = err.to_string();
    for needle in [clean_commit.as_str(), "named in sha1", SHATTERED_SHA1] {
        assert!(
            message.contains(needle),
            "{needle:?} missing from: {message}"
        );
    }
    assert!(!dest.exists(), "a refused first run leaves nothing behind");
}
