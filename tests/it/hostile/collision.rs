//! The hasher that names every object flags the public SHA-1 collisions.
//!
//! SHAttered and SHA-mbles collide as raw byte streams, so they are fed raw
//! to sha1dc, the same `sha1dc::Hasher` that `hash::sha1_object_id` uses;
//! digests are cross-checked with the independent `sha1collisiondetection`
//! crate. That a flagged object stops a conversion is proven by
//! `src/convert/scan/collision_tests.rs`.

use std::path::PathBuf;

use sha1collisiondetection::Sha1CD;

use crate::support::raw_object::hex;

/// A file of `tests/data` (the public collision pairs).
fn data(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// sha1dc flags `bytes`; returns the (colliding) plain digest it reports.
fn flagged_by_sha1dc(bytes: &[u8]) -> String {
    let mut hasher = sha1dc::Hasher::new();
    hasher.update(bytes);
    let collision = hasher
        .finalize()
        .expect_err("sha1dc must flag a known collision");
    assert_eq!(
        collision.to_string(),
        "SHA-1 collision attack detected; digest is the colliding one"
    );
    hex(collision.digest().as_ref())
}

/// The independent implementation flags it too, with the same digest.
fn flagged_by_reference(bytes: &[u8]) -> String {
    let mut reference = Sha1CD::default();
    reference.update(bytes);
    let err = reference
        .finalize_cd()
        .expect_err("sha1collisiondetection flags it too");
    let _ = err;
    // The plain digest, without detection.
    let mut plain = Sha1CD::configure().detect_collisions(false).build();
    plain.update(bytes);
    hex(plain
        .finalize_cd()
        .expect("no detection, no error")
        .as_slice())
}

/// Both files of a colliding pair are flagged by both implementations,
/// which report the same colliding `digest`.
fn assert_pair_flagged(names: [&str; 2], digest: &str) {
    for name in names {
        let bytes = data(name);
        let flagged = flagged_by_sha1dc(&bytes);
        assert_eq!(flagged, digest, "{name}");
        assert_eq!(flagged_by_reference(&bytes), flagged, "{name}");
    }
}

#[test]
fn shattered_pair_is_flagged() {
    assert_pair_flagged(
        ["shattered-1.pdf", "shattered-2.pdf"],
        "38762cf7f55934b34d179ae6a4c80cadccbb7f0a",
    );
    assert_ne!(data("shattered-1.pdf"), data("shattered-2.pdf"));
}

#[test]
fn sha_mbles_pair_is_flagged() {
    assert_pair_flagged(
        ["sha-mbles-1.bin", "sha-mbles-2.bin"],
        "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0",
    );
}

#[test]
fn ordinary_bytes_are_not_flagged() {
    let mut hasher = sha1dc::Hasher::new();
    hasher.update(b"hello world");
    let digest = hasher.finalize().expect("no collision");
    assert_eq!(
        hex(digest.as_ref()),
        "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed"
    );
}

#[test]
fn framed_as_a_git_blob_the_collision_no_longer_fires() {
    // Why the pipeline test needs a hook: git's "blob <len>\0" header
    // shifts the blocks, and the detector stays silent.
    let bytes = data("shattered-1.pdf");
    let mut hasher = sha1dc::Hasher::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(&bytes);
    assert!(hasher.finalize().is_ok());
}
