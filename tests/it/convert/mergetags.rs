//! A mergetag whose embedded tag names a commit SOURCE does not have (git
//! accepts such history; linux.git holds some): refused by default, every
//! such commit listed at once, or with `--unmapped-mergetags=verbatim`
//! kept byte for byte and recorded in the map, so that `verify` and the
//! inverse translation give the SHA-1 commit back exactly.

use std::collections::BTreeMap;

use crate::support::fixture::TrickyRepo;
use crate::support::git::{git, git_bytes, git_output, git_with_input};
use crate::support::id_translation::{to_sha256, translate_id_bytes};
use crate::support::library::{
    HashKind, IdMap, ObjectId, TranslateOptions, map_path, translate_commit,
};
use crate::support::oracle::OracleMap;
use crate::support::rehash::{rehash_export_map, rehash_verify, rehash_verify_ok};
use crate::support::scratch::scratch_dir;
use crate::support::unmapped_mergetags::mergetag_source;

#[test]
fn refused_by_default_listing_every_commit_and_the_option() {
    let mut repo = mergetag_source("mergetag-refused");
    let mut mentions = vec!["--unmapped-mergetags=verbatim".to_string()];
    for (commit, target) in &repo.unmapped {
        mentions.push(format!(
            "the mergetag of commit {commit} names {target}, which the repository does not have"
        ));
    }
    let mentions: Vec<&str> = mentions.iter().map(String::as_str).collect();
    let stderr = repo.source.refused(&mentions);
    // git fsck finds nothing wrong: the message must not send the user there.
    assert!(!stderr.contains("fsck"), "{stderr}");
    assert!(!stderr.contains(&repo.present_target), "{stderr}");
    assert!(stderr.contains("of 2 commit(s)"), "{stderr}");
}

/// SHA-256 -> SHA-1 pairs of an exported map.
fn reverse(map: &OracleMap) -> BTreeMap<ObjectId, ObjectId> {
    map.iter()
        .map(|(s1, (s256, _))| {
            let id = |kind, hex: &str| ObjectId::parse_hex(kind, hex).unwrap();
            (id(HashKind::Sha256, s256), id(HashKind::Sha1, s1))
        })
        .collect()
}

/// The inverse translation of DEST's commit `body` through `map`.
fn translated_back(map: &OracleMap, body: &[u8], verbatim_mergetags: bool) -> Option<Vec<u8>> {
    let reverse = reverse(map);
    let mapper = |id: &ObjectId| reverse.get(id).copied();
    let opts = TranslateOptions {
        verbatim_mergetags,
        ..TranslateOptions::default()
    };
    let mut back = Vec::new();
    let done = translate_commit(
        body,
        HashKind::Sha256,
        HashKind::Sha1,
        &mapper,
        opts,
        &mut back,
    );
    done.ok().map(|_| back)
}

/// The tag a mergetag field embeds, unfolded.
fn unfolded(field: &[u8]) -> Vec<u8> {
    let tag = field.strip_prefix(b"mergetag ").expect("a mergetag field");
    let mut out = Vec::new();
    for line in tag.split_inclusive(|&b| b == b'\n') {
        out.extend_from_slice(line.strip_prefix(b" ").unwrap_or(line));
    }
    out
}

/// The embedded tag's signature verifies: the tag, stored on its own in a
/// SHA-1 repository, passes `git verify-tag` with the fixture's keyring.
fn assert_signature_verifies(field: &[u8], fixture: &TrickyRepo) {
    let repo = scratch_dir("mergetag-verify").join("tags.git");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "--bare"]);
    let args = ["hash-object", "-t", "tag", "--literally", "-w", "--stdin"];
    let tag = String::from_utf8(git_with_input(&repo, &args, &unfolded(field))).unwrap();
    fixture.assert_tag_verifies(&repo, tag.trim());
}

#[test]
fn verbatim_keeps_them_byte_for_byte_and_translates_back_exactly() {
    let mut repo = mergetag_source("mergetag-verbatim");
    let (dest, stderr) = repo.source.converts(&["--unmapped-mergetags=verbatim"]);
    assert!(
        stderr.contains("2 commit(s) keep a mergetag verbatim"),
        "{stderr}"
    );
    let fsck = git_output(&dest, &["fsck", "--strict"]);
    assert!(
        fsck.status.success(),
        "{}",
        String::from_utf8_lossy(&fsck.stderr)
    );
    let report = rehash_verify_ok(&dest, &repo.source.path);
    assert!(
        report.contains("2 commit(s) keep a mergetag verbatim"),
        "{report}"
    );
    let alone = rehash_verify(&dest, None);
    assert!(
        alone.status.success(),
        "{}",
        String::from_utf8_lossy(&alone.stdout)
    );

    let map = rehash_export_map(&dest);
    for (commit, _) in &repo.unmapped {
        let source_body = git_bytes(&repo.source.path, &["cat-file", "commit", commit]);
        let dest_body = git_bytes(&dest, &["cat-file", "commit", &to_sha256(&map, commit)]);
        // Tree, parents and the mergetag of a commit SOURCE has are
        // translated; the fields naming absent commits are not touched.
        assert_eq!(dest_body, translate_id_bytes(&map, &source_body));
        let kept: Vec<&Vec<u8>> = repo
            .kept_fields
            .iter()
            .filter(|f| dest_body.windows(f.len()).any(|w| w == f.as_slice()))
            .collect();
        assert_eq!(kept.len(), 1, "one kept field in {commit}");
        assert_signature_verifies(kept[0], repo.fixture);
        // Back to SHA-1: exact where the map allows a kept field, refused
        // where it would not.
        assert_eq!(translated_back(&map, &dest_body, true), Some(source_body));
        assert_eq!(translated_back(&map, &dest_body, false), None);
    }
    let recorded = IdMap::open_read_only(&map_path(&dest))
        .unwrap()
        .verbatim_mergetags()
        .unwrap();
    let mut expected: Vec<ObjectId> = repo
        .unmapped
        .iter()
        .map(|(c, _)| ObjectId::parse_hex(HashKind::Sha1, c).unwrap())
        .collect();
    expected.sort();
    assert_eq!(recorded, expected);
}

#[test]
fn verify_needs_the_map_record_of_a_kept_mergetag() {
    let mut repo = mergetag_source("mergetag-unrecorded");
    let (dest, _) = repo.source.converts(&["--unmapped-mergetags=verbatim"]);
    let (commit, _) = &repo.unmapped[0];
    let db = rusqlite::Connection::open(map_path(&dest)).unwrap();
    let raw = ObjectId::parse_hex(HashKind::Sha1, commit).unwrap();
    let deleted = db
        .execute(
            "DELETE FROM verbatim_mergetags WHERE sha1 = ?1",
            [raw.as_bytes()],
        )
        .unwrap();
    assert_eq!(deleted, 1);
    drop(db);
    let out = rehash_verify(&dest, None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{text}");
    let map = rehash_export_map(&dest);
    assert!(text.contains(&to_sha256(&map, commit)), "{text}");
    assert!(text.contains("mergetag object"), "{text}");
}
