//! The pack file as a whole: its header, its length, its trailing
//! checksum, and the object count its index agrees with.

use super::{p, two_blobs};
use crate::support::raw_pack::{edit, fix_trailer, fix_trailers, flip_from_end};
use crate::support::repo_files::pack_entries;
use crate::support::watched_source::small_repo_in;

#[test]
fn well_formed_hand_built_pack_converts() {
    // The builder itself is sound: the same pack, undamaged, converts.
    let (mut source, _) = two_blobs("pack-ok");
    source.converts(&[]);
}

#[test]
fn truncated_pack() {
    let (mut source, paths) = two_blobs("pack-truncated");
    edit(&paths.pack, |b| b.truncate(b.len() / 2));
    source.refused(&[&p(&paths.pack), "truncated"]);
}

#[test]
fn pack_shorter_than_a_header() {
    let (mut source, paths) = two_blobs("pack-tiny");
    edit(&paths.pack, |b| b.truncate(10));
    source.refused(&[&p(&paths.pack), "truncated at offset 10"]);
}

#[test]
fn bad_magic() {
    let (mut source, paths) = two_blobs("pack-magic");
    edit(&paths.pack, |b| b[..4].copy_from_slice(b"KCAP"));
    source.refused(&[&p(&paths.pack), "not a pack file (bad magic)"]);
}

#[test]
fn bad_version() {
    let (mut source, paths) = two_blobs("pack-version");
    edit(&paths.pack, |b| b[7] = 9);
    source.refused(&[&p(&paths.pack), "version 9"]);
}

#[test]
fn wrong_object_count() {
    let (mut source, paths) = two_blobs("pack-count");
    edit(&paths.pack, |b| b[11] = 3);
    fix_trailers(&paths);
    source.refused(&[
        &p(&paths.pack),
        &p(&paths.idx),
        "index has 2 objects, pack has 3",
    ]);
}

#[test]
fn forged_huge_object_count() {
    let (mut source, paths) = two_blobs("pack-count-huge");
    edit(&paths.pack, |b| b[8..12].copy_from_slice(&[0xff; 4]));
    source.refused(&[&p(&paths.pack), "claims 4294967295 objects"]);
}

#[test]
fn trailer_mismatch() {
    let (mut source, paths) = two_blobs("pack-trailer");
    // Damage the pack trailer and the index's copy alike: only the
    // recomputed checksum can notice.
    flip_from_end(&paths.pack, 1, 1);
    flip_from_end(&paths.idx, 21, 1);
    fix_trailer(&paths.idx);
    source.refused(&[&p(&paths.pack), "trailing checksum does not match"]);
}

#[test]
fn bit_flip_in_a_git_written_pack_names_the_object_whose_entry_holds_it() {
    refuses_a_flipped_byte("pack-bitflip", "sha1");
}

/// A byte flipped in the middle of the pack git wrote for a repository of
/// object format `format`: refused, naming the pack and the object whose
/// entry holds the byte, with its offset.
pub(in crate::hostile) fn refuses_a_flipped_byte(label: &str, format: &str) {
    let mut source = small_repo_in(label, format);
    let pack = source.repack();
    let mid = std::fs::metadata(&pack).unwrap().len() / 2;
    let hit = pack_entries(&pack, format)
        .into_iter()
        .rev()
        .find(|e| e.offset <= mid)
        .expect("an entry holds the middle byte");
    edit(&pack, |b| b[mid as usize] ^= 0x10);
    source.refused(&[
        &p(&pack),
        &format!("object {} in", hit.id),
        &format!("at offset {}: CRC32 does not match", hit.offset),
    ]);
}
