//! Broken and hostile input in the SHA-256 -> SHA-1 direction: a damaged
//! SHA-256 pack, a missing object, and a SOURCE whose own map (it is a
//! git-rehash DEST) disagrees with its objects. Each ends in exit status
//! 1 with a message naming the file and the object, SOURCE untouched and
//! a DEST git does not open.

use std::path::Path;

use crate::support::file_tree::copy_dir;
use crate::support::git::git;
use crate::support::library::{HashKind, ObjectId, map_path};
use crate::support::raw_pack::edit;

use crate::support::reversed::reversed_fixture;
use crate::support::scratch::scratch_dir;
use crate::support::watched_source::{Source, small_repo_in};

/// The file name, as error messages give it.
fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn a_flipped_byte_in_a_sha256_pack_names_the_pack_and_the_object() {
    super::pack::file::refuses_a_flipped_byte("reverse-bitflip", "sha256");
}

#[test]
fn a_truncated_sha256_pack_is_refused_naming_it() {
    let mut source = small_repo_in("reverse-truncated", "sha256");
    let pack = source.repack();
    edit(&pack, |b| b.truncate(b.len() / 2));
    source.refused(&[&file_name(&pack), "truncated"]);
}

#[test]
fn a_missing_object_is_named_with_what_references_it() {
    super::objects::refuses_a_missing_blob("reverse-missing", "sha256");
}

/// A copy of the SHA-1 DEST of the SHA-256 fixture whose map pairs the
/// object `sha1` (of the fixture's `rev`) with a SHA-256 name it does not
/// have.
fn dest_whose_map_lies(label: &str, rev: &str) -> (Source, String) {
    let reversed = reversed_fixture();
    let copy = scratch_dir(label).join("source.git");
    copy_dir(&reversed.dest, &copy);
    let sha1 = git(&copy, &["rev-parse", rev]);
    let db = rusqlite::Connection::open(map_path(&copy)).unwrap();
    let id = ObjectId::parse_hex(HashKind::Sha1, &sha1).unwrap();
    let changed = db
        .execute(
            "UPDATE objects SET sha256 = ?1 WHERE sha1 = ?2",
            rusqlite::params![[0x5a_u8; 32].as_slice(), id.as_bytes()],
        )
        .unwrap();
    assert_eq!(changed, 1);
    (Source::at(copy), sha1)
}

#[test]
fn a_source_whose_map_disagrees_with_a_blob_is_refused_naming_it() {
    let (mut source, blob) = dest_whose_map_lies("reverse-lying-blob", "main:a.txt");
    let map = map_path(&source.path).display().to_string();
    source.refused(&[&blob, &map, &"5a".repeat(32)]);
}

#[test]
fn a_source_whose_map_disagrees_with_a_commit_is_refused_naming_it() {
    let (mut source, commit) = dest_whose_map_lies("reverse-lying-commit", "main~2");
    let map = map_path(&source.path).display().to_string();
    source.refused(&[&commit, &map, &"5a".repeat(32)]);
}
