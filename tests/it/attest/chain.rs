//! Statements link up across conversions: SOURCE (SHA-1) -> DEST
//! (SHA-256, `convert --attest`) -> MIRROR (SHA-1 again, `export-sha1
//! --attest`, whose statement names DEST's) -> DEST2 (`convert --attest`
//! of MIRROR, whose statement names MIRROR's, carried into DEST2 as
//! `refs/rehash/source-attestation`).

use std::path::Path;

use super::{attestation, scene, statement_of};
use crate::support::git::git;
use crate::support::process::stdout_text;
use crate::support::rehash::{rehash_map, run_ok};

#[test]
fn statements_name_the_statement_of_the_repository_converted_from() {
    let scene = scene("attest-chain");
    let dest = scene.convert_attested("dest.git", &[]);
    let dest_statement = attestation(&dest);

    let mirror = scene.root.join("mirror.git");
    git(
        &scene.root,
        &[
            "init",
            "-q",
            "--bare",
            "--object-format=sha1",
            mirror.to_str().unwrap(),
        ],
    );
    let mut export = scene.signer.rehash(&["export-sha1", "--quiet", "--attest"]);
    run_ok(export.arg(&dest).arg(&mirror));
    scene
        .signer
        .git(&mirror, &["verify-tag", "refs/rehash/attestation"]);
    let mirror_statement = attestation(&mirror);
    let stated = statement_of(&mirror, &mirror_statement);
    assert_eq!(stated["direction"], "sha256-to-sha1");
    assert_eq!(stated["source_attestation"], dest_statement.as_str());
    // Its refs name DEST's objects as their SOURCE counterparts.
    assert_states_main(&stated, &mirror, &dest);
    // MIRROR's statement is checked against DEST's map.
    let map = dest.join("rehash/map.sqlite");
    let text = scene.verify_attestation_ok(&mirror, &["--map", map.to_str().unwrap()]);
    assert!(text.contains("ok: the statements of"), "{text}");
    // DEST's statements are not exported: they have no SHA-1.
    let out = rehash_map(&dest, &[&dest_statement]);
    assert!(stdout_text(&out).contains("missing"), "{out:?}");

    // And once more the other way: MIRROR converted.
    let dest2 = scene.root.join("dest2.git");
    let mut convert = scene.signer.rehash(&["convert", "--quiet", "--attest"]);
    run_ok(convert.arg(&mirror).arg(&dest2));
    let stated2 = statement_of(&dest2, "refs/rehash/attestation");
    assert_eq!(stated2["source_attestation"], mirror_statement.as_str());
    // MIRROR's statement is in DEST2, converted, under its own ref.
    let carried = git(&dest2, &["rev-parse", "refs/rehash/source-attestation"]);
    let row = stdout_text(&rehash_map(&dest2, &[&carried]));
    assert!(
        row.starts_with(&format!("{mirror_statement} {carried} tag")),
        "{row}"
    );
    scene.verify_attestation_ok(&dest2, &["--source", mirror.to_str().unwrap()]);
}

/// SOURCE (SHA-1) -> DEST (SHA-256) -> BACK (SHA-1 again, `convert
/// --attest` of DEST): BACK's statement names DEST's, BACK is checked as
/// the DEST of a conversion (objects, map and refs as well as its
/// statements), and `attest` states a SHA-1 DEST made without `--attest`.
#[test]
fn a_conversion_back_to_sha1_states_and_names_the_statement_it_came_from() {
    let scene = scene("attest-back");
    let dest = scene.convert_attested("dest.git", &[]);
    let dest_statement = attestation(&dest);

    let back = scene.root.join("back.git");
    let mut convert = scene.signer.rehash(&["convert", "--quiet", "--attest"]);
    run_ok(convert.arg(&dest).arg(&back));
    assert_eq!(git(&back, &["rev-parse", "--show-object-format"]), "sha1");
    scene
        .signer
        .git(&back, &["verify-tag", "refs/rehash/attestation"]);
    let stated = statement_of(&back, "refs/rehash/attestation");
    assert_eq!(stated["direction"], "sha256-to-sha1");
    assert_eq!(stated["source_attestation"], dest_statement.as_str());
    // Its refs name SOURCE's objects again, and DEST's as where they came
    // from.
    assert_states_main(&stated, &scene.source, &dest);
    // DEST's statement is in BACK, under its own ref, named in SHA-1
    // through BACK's map.
    let carried = git(&back, &["rev-parse", "refs/rehash/source-attestation"]);
    let row = stdout_text(&rehash_map(&back, &[&carried]));
    assert!(
        row.starts_with(&format!("{carried} {dest_statement} tag")),
        "{row}"
    );

    // Checked as a DEST: the whole verification runs, not the statement
    // alone.
    let text = scene.verify_attestation_ok(&back, &["--source", dest.to_str().unwrap()]);
    assert!(!text.contains("its objects are not checked here"), "{text}");
    assert!(
        text.contains("map rows") && text.contains("source objects"),
        "{text}"
    );
    assert!(text.contains("1 statement(s)"), "{text}");

    // `attest` of a SHA-1 DEST made without --attest.
    let plain = scene.root.join("plain-back.git");
    run_ok(
        scene
            .signer
            .rehash(&["convert", "--quiet"])
            .arg(&dest)
            .arg(&plain),
    );
    run_ok(scene.signer.rehash(&["attest", "--quiet"]).arg(&plain));
    let stated = statement_of(&plain, "refs/rehash/attestation");
    assert_eq!(stated["direction"], "sha256-to-sha1");
    assert_eq!(stated["source_attestation"], dest_statement.as_str());
    scene.verify_attestation_ok(&plain, &[]);
}

/// Asserts that `statement` states `refs/heads/main` as the commit it
/// names in `repo`, come from the one it names in `source`.
fn assert_states_main(statement: &serde_json::Value, repo: &Path, source: &Path) {
    let main = statement["refs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "refs/heads/main")
        .expect("main is stated");
    let named = |repo: &Path| git(repo, &["rev-parse", "refs/heads/main"]);
    assert_eq!(main["dest"], named(repo).as_str());
    assert_eq!(main["source"], named(source).as_str());
}
