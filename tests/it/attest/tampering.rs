//! Every way of making DEST differ from its signed statement is caught by
//! `verify --attestation` and named: a ref moved, a map row changed, an
//! object added, the statement edited, a statement signed by a key the
//! allowed signers do not list.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{Scene, Signer, assert_fails_naming, attestation, scene, tag_body};
use crate::support::file_tree::copy_dir;
use crate::support::git::{git, git_with_input};
use crate::support::library::{IdMap, MapRow, ObjectId, map_path};
use crate::support::rehash::run_ok;
use crate::support::scratch::scratch_dir;

/// One attested conversion, shared read-only; each test damages a copy.
fn attested() -> &'static (Scene, PathBuf) {
    static DONE: OnceLock<(Scene, PathBuf)> = OnceLock::new();
    DONE.get_or_init(|| {
        let scene = scene("attest-tamper");
        let dest = scene.convert_attested("dest.git", &[]);
        scene.verify_attestation_ok(&dest, &[]);
        (scene, dest)
    })
}

fn damaged_copy(label: &str) -> PathBuf {
    let dest = scratch_dir(label).join("dest.git");
    copy_dir(&attested().1, &dest);
    dest
}

/// Moves `topic` in `dest` to where `main` is; returns that commit.
fn move_topic_to_main(dest: &Path) -> String {
    let main = git(dest, &["rev-parse", "refs/heads/main"]);
    git(dest, &["update-ref", "refs/heads/topic", &main]);
    main
}

#[test]
fn a_moved_ref_is_named() {
    let (scene, _) = attested();
    let dest = damaged_copy("attest-tamper-ref");
    let main = move_topic_to_main(&dest);
    assert_fails_naming(
        &scene.verify_attestation(&dest, &[]),
        &[
            "error: attestation: ref refs/heads/topic: the statement says",
            &main,
        ],
    );
}

#[test]
fn a_changed_map_row_is_named() {
    let (scene, _) = attested();
    let dest = damaged_copy("attest-tamper-map");
    let main = git(&dest, &["rev-parse", "refs/heads/main"]);
    let mut map = IdMap::open_rw(&map_path(&dest)).unwrap();
    let sha256 = ObjectId::parse_hex(crate::support::library::HashKind::Sha256, &main).unwrap();
    let row = map.lookup(&sha256).unwrap().expect("main has a row");
    let bogus = ObjectId::Sha1([0x5a; 20]);
    map.load([MapRow { sha1: bogus, ..row }]).unwrap();
    drop(map);
    assert_fails_naming(
        &scene.verify_attestation(&dest, &[]),
        &[
            "error: attestation: map: the statement says",
            // The object checks name the row itself.
            &main,
            &bogus.to_hex(),
            // And main's SOURCE counterpart is no longer the stated one.
            "ref refs/heads/main",
        ],
    );
}

#[test]
fn an_added_object_is_named() {
    let (scene, _) = attested();
    let dest = damaged_copy("attest-tamper-object");
    let blob = git_with_input(&dest, &["hash-object", "-w", "--stdin"], b"slipped in\n");
    let blob = String::from_utf8(blob).unwrap().trim().to_string();
    assert_fails_naming(
        &scene.verify_attestation(&dest, &[]),
        &[&blob, "has no row in the map"],
    );
}

#[test]
fn an_edited_statement_is_named() {
    let (scene, _) = attested();
    let dest = damaged_copy("attest-tamper-statement");
    let tag = attestation(&dest);
    let body = tag_body(&dest, &tag);
    let topic = git(&dest, &["rev-parse", "refs/heads/topic"]);
    let main = git(&dest, &["rev-parse", "refs/heads/main"]);
    // The statement now claims topic is where main is; the ref is moved
    // to match, and the signature is the original one.
    let edited = body.replacen(
        &format!("\"dest\": \"{topic}\""),
        &format!("\"dest\": \"{main}\""),
        1,
    );
    assert_ne!(edited, body);
    let forged = git_with_input(
        &dest,
        &["hash-object", "-t", "tag", "-w", "--stdin"],
        edited.as_bytes(),
    );
    let forged = String::from_utf8(forged).unwrap().trim().to_string();
    git(&dest, &["update-ref", "refs/rehash/attestation", &forged]);
    move_topic_to_main(&dest);
    assert_fails_naming(
        &scene.verify_attestation(&dest, &[]),
        &[
            &format!("refs/rehash/attestation (tag {forged}): its signature does not verify"),
            // No conversion wrote the forged tag.
            &format!("{forged} (tag) is in DEST but has no row in the map"),
        ],
    );
}

#[test]
fn a_statement_signed_by_a_key_not_allowed_is_named() {
    let (scene, _) = attested();
    let dest = damaged_copy("attest-tamper-key");
    // Someone else changes DEST and states it with their own key.
    move_topic_to_main(&dest);
    let intruder = Signer::new(&scratch_dir("attest-intruder"));
    run_ok(&mut intruder.rehash(&["attest", "--quiet", dest.to_str().unwrap()]));
    let theirs = attestation(&dest);
    // With their allowed signers it verifies; with the project's it does not.
    let allowed = scene.signer.allowed_signers.to_str().unwrap();
    let out = scene.verify_attestation(&dest, &["--allowed-signers", allowed]);
    assert_fails_naming(
        &out,
        &[
            &format!("refs/rehash/attestation (tag {theirs}): its signature does not verify"),
            "No principal matched",
        ],
    );
    let out = intruder
        .rehash(&["verify", "--quiet", "--attestation", dest.to_str().unwrap()])
        .output()
        .unwrap();
    // The intruder's own allowed signers lack the project's key: the
    // statement before theirs does not verify for them.
    assert_fails_naming(&out, &["statement 1 back", "its signature does not verify"]);
}
