//! Pack indexes that contradict their pack or themselves: fanout, offsets,
//! CRC32s, name order, trailers, version and size.

use super::{A, B, p, two_blobs};
use crate::support::raw_object::{hex, object_name};
use crate::support::raw_pack::{PackPaths, edit, fix_trailer, flip_from_end};

/// Where the tables of an index v2 of `n` objects start: after the
/// 8-byte header and the 256-entry fanout, names (20 bytes each), then
/// CRC32s and offsets (4 bytes each).
const IDX_NAMES_AT: usize = 8 + 1024;
fn idx_crcs_at(n: usize) -> usize {
    IDX_NAMES_AT + n * 20
}
fn idx_offsets_at(n: usize) -> usize {
    idx_crcs_at(n) + n * 4
}

/// Writes `bytes` at `at` into the index and makes its trailer match, so
/// only that damage remains.
fn patch_idx(paths: &PackPaths, at: usize, bytes: &[u8]) {
    edit(&paths.idx, |b| {
        b[at..at + bytes.len()].copy_from_slice(bytes)
    });
    fix_trailer(&paths.idx);
}

/// The names of the blobs [`A`] and [`B`], in index order.
fn sorted_names() -> [[u8; 20]; 2] {
    let mut names = [object_name("blob", A), object_name("blob", B)];
    names.sort();
    names
}

#[test]
fn idx_fanout_not_monotonic() {
    let (mut source, paths) = two_blobs("idx-fanout");
    // fanout[10] = 9: then fanout[11] is smaller.
    patch_idx(&paths, 8 + 40, &[0, 0, 0, 9]);
    source.refused(&[&p(&paths.idx), "non-monotonic fanout table at entry 11"]);
}

#[test]
fn idx_offset_past_the_pack() {
    let (mut source, paths) = two_blobs("idx-offset");
    patch_idx(&paths, idx_offsets_at(2), &100_000u32.to_be_bytes());
    source.refused(&[
        &p(&paths.idx),
        "at offset 100000, outside the pack's entries",
    ]);
}

#[test]
fn two_idx_entries_at_one_offset() {
    let (mut source, paths) = two_blobs("idx-same-offset");
    // Both at the first entry's offset, right after the 12-byte header.
    let twelve = 12u32.to_be_bytes();
    patch_idx(&paths, idx_offsets_at(2), &[twelve, twelve].concat());
    source.refused(&[&p(&paths.pack), "two index entries point at offset 12"]);
}

#[test]
fn idx_crc_mismatch() {
    let (mut source, paths) = two_blobs("idx-crc");
    let crcs_at = idx_crcs_at(2);
    edit(&paths.idx, |b| b[crcs_at] ^= 0x55);
    fix_trailer(&paths.idx);
    let first = hex(&sorted_names()[0]);
    source.refused(&[
        &p(&paths.pack),
        &first,
        "CRC32 does not match the pack index",
    ]);
}

#[test]
fn idx_names_not_sorted() {
    let (mut source, paths) = two_blobs("idx-unsorted");
    let names = sorted_names();
    // Swap the two names (keeping them in their fanout buckets is
    // impossible, so either check may fire: both are "unsorted").
    patch_idx(&paths, IDX_NAMES_AT, &[names[1], names[0]].concat());
    source.refused(&[&p(&paths.idx), "names are not sorted"]);
}

#[test]
fn idx_trailer_mismatch() {
    let (mut source, paths) = two_blobs("idx-trailer");
    flip_from_end(&paths.idx, 1, 0x01);
    source.refused(&[&p(&paths.idx), "trailing checksum does not match"]);
}

#[test]
fn idx_belongs_to_another_pack() {
    let (mut source, paths) = two_blobs("idx-other-pack");
    flip_from_end(&paths.idx, 30, 0x01); // the copy of the pack trailer
    fix_trailer(&paths.idx);
    source.refused(&[&p(&paths.pack), &p(&paths.idx), "does not belong to index"]);
}

#[test]
fn idx_unsupported_version_and_too_small() {
    let (mut source, paths) = two_blobs("idx-version");
    edit(&paths.idx, |b| b[7] = 3);
    source.refused(&[&p(&paths.idx), "version 3"]);
    let (mut source, paths) = two_blobs("idx-small");
    edit(&paths.idx, |b| b.truncate(100));
    source.refused(&[&p(&paths.idx), "too small (100 bytes)"]);
}
