//! Statements link up across conversions: SOURCE (SHA-1) -> DEST
//! (SHA-256, `convert --attest`) -> MIRROR (SHA-1 again, `export-sha1
//! --attest`, whose statement names DEST's) -> DEST2 (`convert --attest`
//! of MIRROR, whose statement names MIRROR's, carried into DEST2 as
//! `refs/rehash/source-attestation`).

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
    let main = stated["refs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "refs/heads/main")
        .unwrap()
        .clone();
    assert_eq!(
        main["dest"],
        git(&mirror, &["rev-parse", "refs/heads/main"]).as_str()
    );
    assert_eq!(
        main["source"],
        git(&dest, &["rev-parse", "refs/heads/main"]).as_str()
    );
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
