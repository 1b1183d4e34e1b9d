//! A statement is an ordinary signed tag: git verifies it, git carries
//! it, and it says what DEST is; incremental runs and repack change DEST,
//! `verify` says so, and the next statement names the one before.

use sha2::{Digest, Sha256};

use super::{assert_fails_naming, attestation, run_killed_at, scene, statement_of, tag_body};
use crate::support::git::{git, git_output};
use crate::support::history::commit_file;
use crate::support::process::stdout_text;
use crate::support::rehash::{rehash_export_text, rehash_verify, run_ok};

#[test]
fn a_statement_is_a_signed_tag_git_verifies_and_carries() {
    let scene = scene("attest-signed");
    let dest = scene.convert_attested("dest.git", &[]);
    let tag = attestation(&dest);
    scene
        .signer
        .git(&dest, &["verify-tag", "refs/rehash/attestation"]);
    let fsck = git_output(&dest, &["fsck", "--strict", "--no-dangling"]);
    assert!(fsck.status.success(), "{fsck:?}");
    // The first statement is a tag of the commit HEAD names.
    let body = tag_body(&dest, &tag);
    let head = git(&dest, &["rev-parse", "HEAD"]);
    assert!(
        body.starts_with(&format!(
            "object {head}\ntype commit\ntag rehash/attestation\n"
        )),
        "{body}"
    );

    let text = scene.verify_attestation_ok(&dest, &[]);
    assert!(text.contains("1 statement(s)"), "{text}");
    scene.verify_attestation_ok(&dest, &["--source", scene.source.to_str().unwrap()]);
    // Plain verify knows it too, and says DEST is what it states.
    let plain = stdout_text(&rehash_verify(&dest, Some(&scene.source)));
    assert!(plain.contains("is what its statement"), "{plain}");

    // What it says: the map's export, every ref, the one pack.
    let statement = statement_of(&dest, &tag);
    let export = rehash_export_text(&dest);
    let digest: String = Sha256::digest(export.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(statement["map"]["sha256"], digest.as_str());
    assert_eq!(statement["map"]["rows"], export.lines().count());
    assert_eq!(statement["direction"], "sha1-to-sha256");
    assert_eq!(statement["previous"], serde_json::Value::Null);
    assert_eq!(statement["source_attestation"], serde_json::Value::Null);
    let main = statement["refs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "refs/heads/main")
        .expect("main is stated")
        .clone();
    assert_eq!(main["dest"], head.as_str());
    assert_eq!(
        main["source"],
        git(&scene.source, &["rev-parse", "refs/heads/main"]).as_str()
    );
    let packs = statement["packs"].as_array().unwrap();
    assert_eq!(packs.len(), 1);
    assert!(
        dest.join(format!("objects/pack/{}.pack", packs[0].as_str().unwrap()))
            .is_file()
    );

    // git carries it: a mirror clone has the ref, the chain and the
    // commit, and git verifies it there.
    let clone = scene.root.join("clone.git");
    git(
        &scene.root,
        &[
            "clone",
            "-q",
            "--mirror",
            dest.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    assert_eq!(attestation(&clone), tag);
    scene
        .signer
        .git(&clone, &["verify-tag", "refs/rehash/attestation"]);
    // And a push of the one ref carries the statement and what it names.
    let pushed = scene.root.join("pushed.git");
    git(
        &scene.root,
        &[
            "init",
            "-q",
            "--bare",
            "--object-format=sha256",
            pushed.to_str().unwrap(),
        ],
    );
    git(
        &dest,
        &[
            "push",
            "-q",
            pushed.to_str().unwrap(),
            "refs/rehash/attestation",
        ],
    );
    assert_eq!(attestation(&pushed), tag);
    scene
        .signer
        .git(&pushed, &["verify-tag", "refs/rehash/attestation"]);
    let fsck = git_output(&pushed, &["fsck", "--strict", "--no-dangling"]);
    assert!(fsck.status.success(), "{fsck:?}");
}

#[test]
fn later_runs_and_repack_are_noticed_and_the_next_statement_names_the_last() {
    let scene = scene("attest-later");
    let dest = scene.convert_attested("dest.git", &[]);
    let first = attestation(&dest);
    // Nothing changed: no new statement.
    let again = run_ok(&mut scene.signer.rehash(&["attest", dest.to_str().unwrap()]));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("no new statement"),
        "{again:?}"
    );
    assert_eq!(attestation(&dest), first);

    // SOURCE moves on; the next run keeps DEST's statement, which no
    // longer says what DEST is.
    commit_file(&scene.source, "later.txt", "later\n", "later work");
    let mut update = scene.signer.rehash(&["convert", "--quiet"]);
    run_ok(update.arg(&scene.source).arg(&dest));
    assert_eq!(attestation(&dest), first, "the run keeps DEST's statement");
    let plain = stdout_text(&rehash_verify(&dest, Some(&scene.source)));
    assert!(
        plain.contains("has changed since its last statement"),
        "{plain}"
    );
    assert!(
        plain.contains("ok:"),
        "a change is not an error of plain verify:\n{plain}"
    );
    assert_fails_naming(
        &scene.verify_attestation(&dest, &[]),
        &[
            "ref refs/heads/main",
            "map:",
            "packs:",
            "has changed since its last statement",
        ],
    );

    // attest states it; the new tag points at the old one.
    run_ok(
        &mut scene
            .signer
            .rehash(&["attest", "--quiet", dest.to_str().unwrap()]),
    );
    let second = attestation(&dest);
    assert_ne!(second, first);
    assert!(tag_body(&dest, &second).starts_with(&format!("object {first}\ntype tag\n")));
    assert_eq!(statement_of(&dest, &second)["previous"], first.as_str());
    scene.verify_attestation_ok(&dest, &["--source", scene.source.to_str().unwrap()]);

    // repack changes the pack; statement three, after it.
    run_ok(
        &mut scene
            .signer
            .rehash(&["repack", "--quiet", dest.to_str().unwrap()]),
    );
    assert_fails_naming(&scene.verify_attestation(&dest, &[]), &["packs:"]);
    let mut convert = scene.signer.rehash(&["convert", "--quiet", "--attest"]);
    run_ok(convert.arg(&scene.source).arg(&dest));
    let third = attestation(&dest);
    assert_eq!(statement_of(&dest, &third)["previous"], second.as_str());
    let text = scene.verify_attestation_ok(&dest, &["--source", scene.source.to_str().unwrap()]);
    assert!(text.contains("3 statement(s)"), "{text}");
    // The statements stay loose objects beside the one pack.
    let statement = statement_of(&dest, &third);
    assert_eq!(statement["packs"].as_array().unwrap().len(), 1);
}

#[test]
fn without_a_signing_key_nothing_is_written_and_the_reason_is_given() {
    let scene = scene("attest-unsigned");
    let dest = scene.root.join("dest.git");
    let out = crate::support::rehash::rehash_command()
        .args(["convert", "--quiet", "--attest"])
        .arg(&scene.source)
        .arg(&dest)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the conversion is complete"), "{stderr}");
    assert!(stderr.contains("user.signingKey"), "{stderr}");
    assert!(
        git_output(
            &dest,
            &["rev-parse", "--verify", "-q", "refs/rehash/attestation"]
        )
        .stdout
        .is_empty()
    );
    assert!(!dest.join("rehash/attest-scratch").exists());
    // DEST itself is a finished conversion.
    let report = stdout_text(&rehash_verify(&dest, Some(&scene.source)));
    assert!(report.contains("ok:"), "{report}");
    // verify --attestation says there is no statement.
    assert_fails_naming(&scene.verify_attestation(&dest, &[]), &["has no statement"]);
}

#[test]
fn a_later_run_killed_before_the_statement_is_pointed_at_again_keeps_it() {
    let scene = scene("attest-kept");
    for format in ["files", "reftable"] {
        let dest = scene.convert_attested(&format!("{format}.git"), &["--ref-format", format]);
        let statement = attestation(&dest);
        commit_file(
            &scene.source,
            &format!("{format}.txt"),
            "more\n",
            "more work",
        );
        let update = || {
            let mut cmd = scene.signer.rehash(&["convert", "--quiet"]);
            cmd.arg(&scene.source).arg(&dest);
            cmd
        };
        run_killed_at(update(), "statement-kept:1");
        run_ok(&mut update());
        assert_eq!(attestation(&dest), statement, "{format}");
        let text = stdout_text(&scene.verify_attestation(&dest, &[]));
        assert!(
            text.contains("has changed since its last statement"),
            "{format}: {text}"
        );
        assert!(
            !text.contains("signature does not verify"),
            "{format}: {text}"
        );
    }
}

#[test]
fn a_dest_with_gits_compat_map_keeps_its_statement_readable_to_git() {
    let scene = scene("attest-compat");
    let dest = scene.convert_attested("dest.git", &["--git-compat-map"]);
    scene
        .signer
        .git(&dest, &["verify-tag", "refs/rehash/attestation"]);
    let fsck = git_output(&dest, &["fsck", "--strict", "--no-dangling"]);
    assert!(fsck.status.success(), "{fsck:?}");
    scene.verify_attestation_ok(&dest, &["--source", scene.source.to_str().unwrap()]);
}
