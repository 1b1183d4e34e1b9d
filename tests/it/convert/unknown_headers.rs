//! A commit header git does not know (`change-id`) is copied verbatim by
//! default, and translates back to the original bytes; `--strict-headers`
//! refuses it.

use std::collections::BTreeMap;

use crate::support::file_tree::tree_checksums;
use crate::support::fixture::{FixtureOptions, tricky_repo};
use crate::support::git::git_bytes;
use crate::support::id_translation::{to_sha256, translate_id_bytes};
use crate::support::library::{HashKind, ObjectId, TranslateOptions, translate_commit};
use crate::support::oracle::oracle_run;
use crate::support::refusal::assert_refused_cleanly;
use crate::support::rehash::{rehash_convert, rehash_export_map};
use crate::support::scratch::scratch_dir;

#[test]
fn unknown_header_is_copied_verbatim_and_translates_back() {
    let repo = tricky_repo(FixtureOptions::UNKNOWN_HEADER);
    let dest = scratch_dir("convert-unknown").join("dest.git");
    let out = rehash_convert(&repo.repo_path, &dest, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("change-id"),
        "summary counts it"
    );
    let map = rehash_export_map(&dest);
    let sha1 = repo.rev("refs/heads/unknown-header");
    let sha256 = to_sha256(&map, &sha1);
    let source_body = git_bytes(&repo.repo_path, &["cat-file", "commit", &sha1]);
    let dest_body = git_bytes(&dest, &["cat-file", "commit", &sha256]);
    assert_eq!(translate_id_bytes(&map, &source_body), dest_body);
    // And back: the inverse translation with the map gives the original bytes.
    let reverse: BTreeMap<ObjectId, ObjectId> = map
        .iter()
        .map(|(s1, (s256, _))| {
            (
                ObjectId::parse_hex(HashKind::Sha256, s256).unwrap(),
                ObjectId::parse_hex(HashKind::Sha1, s1).unwrap(),
            )
        })
        .collect();
    let mapper = |id: &ObjectId| reverse.get(id).copied();
    let mut back = Vec::new();
    translate_commit(
        &dest_body,
        HashKind::Sha256,
        HashKind::Sha1,
        &mapper,
        TranslateOptions::default(),
        &mut back,
    )
    .expect("translates back");
    assert_eq!(back, source_body);
    // Every other object still matches git's names.
    let oracle = oracle_run(&repo.repo_path, true, &[]);
    for (s1, pair) in &oracle.map {
        assert_eq!(map.get(s1), Some(pair), "object {s1}");
    }
    assert_eq!(map.len(), oracle.map.len() + oracle.refused.len());
}

#[test]
fn strict_headers_refuses_unknown_header() {
    let repo = tricky_repo(FixtureOptions::UNKNOWN_HEADER);
    let dest = scratch_dir("convert-strict").join("dest.git");
    let before = tree_checksums(&repo.root);
    let out = rehash_convert(&repo.repo_path, &dest, &["--strict-headers"]);
    let sha1 = repo.rev("refs/heads/unknown-header");
    assert_refused_cleanly(&out, &dest, &[&sha1, "change-id"]);
    assert_eq!(before, tree_checksums(&repo.root));
}
