//! Reproducibility is part of the proof: two independent conversions of
//! one SOURCE with the same options, one on one thread, the other on two
//! and killed on the way then resumed, state the same: their statements
//! are byte for byte one, and so is the pack they name; the tags differ
//! at most in their tagger line (the time) and signature.

use std::path::Path;
use std::process::Command;

use super::{attestation, run_killed_at, scene, statement_of, tag_body};
use crate::support::rehash::run_ok;

/// A tag without its tagger line and its signature.
fn without_time_and_signature(body: &str) -> String {
    let unsigned = &body[..body
        .find("-----BEGIN SSH SIGNATURE-----")
        .expect("a signed tag")];
    unsigned
        .lines()
        .filter(|line| !line.starts_with("tagger "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn independent_conversions_state_the_same_and_name_the_same_pack() {
    let scene = scene("attest-reproducible");
    let one = scene.convert_attested("one-thread.git", &["--jobs", "1"]);

    // The other: two threads, small segments, killed once a few segments
    // are committed, then the same command again.
    let two = scene.root.join("two-threads.git");
    let convert = || -> Command {
        let mut cmd = scene
            .signer
            .rehash(&["convert", "--quiet", "--attest", "--jobs", "2"]);
        cmd.arg(&scene.source)
            .arg(&two)
            .env("GIT_REHASH_TEST_SEGMENT_OBJECTS", "5");
        cmd
    };
    run_killed_at(convert(), "committed:3");
    assert!(
        !two.join("config").exists(),
        "a killed run left a finished DEST"
    );
    // Signed at another time.
    run_ok(convert().env("GIT_COMMITTER_DATE", "1700009999 +0000"));

    let (a, b) = (
        statement_of(&one, "refs/rehash/attestation"),
        statement_of(&two, "refs/rehash/attestation"),
    );
    assert_eq!(a, b, "the statements differ");
    let packs = a["packs"].as_array().unwrap();
    assert_eq!(packs.len(), 1, "{a}");
    let pack = |dest: &Path| {
        std::fs::read(dest.join(format!("objects/pack/{}.pack", packs[0].as_str().unwrap())))
            .expect("the stated pack is there")
    };
    assert_eq!(pack(&one), pack(&two), "the packs differ");
    let (tag_a, tag_b) = (
        tag_body(&one, &attestation(&one)),
        tag_body(&two, &attestation(&two)),
    );
    assert_ne!(tag_a, tag_b, "signed at different times");
    assert_eq!(
        without_time_and_signature(&tag_a),
        without_time_and_signature(&tag_b)
    );
    scene.verify_attestation_ok(&two, &["--source", scene.source.to_str().unwrap()]);
}
