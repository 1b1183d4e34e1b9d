//! Broken and hostile packs and pack indexes: every case ends in exit 1
//! with a message naming the file and the offset or object, no panic, and
//! SOURCE byte-identical (checked by `Source::refused`).
//!
//! The packs are built byte by byte (`hostile_support`), with correct
//! trailers and CRC32s unless the test is about those, so each test reaches
//! the check it is about.

mod common;
mod hostile_support;

use common::*;
use hostile_support::*;

const A: &[u8] = b"first blob\n";
const B: &[u8] = b"second blob, a bit longer than the first\n";

/// A repository whose only pack holds `entries`.
fn repo_with(label: &str, entries: &[RawEntry]) -> (Source, PackPaths) {
    let source = bare_repo(label);
    let paths = write_pack(&source.git_dir, entries);
    (source, paths)
}

fn two_blobs(label: &str) -> (Source, PackPaths) {
    repo_with(label, &[blob_entry(A), blob_entry(B)])
}

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

fn p(path: &std::path::Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn well_formed_hand_built_pack_converts() {
    // The builder itself is sound: the same pack, undamaged, converts.
    let (mut source, _) = two_blobs("pack-ok");
    source.converts(&[]);
}

// ------------------------------------------------------------------ file level

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
    edit(&paths.pack, |b| {
        let n = b.len();
        b[n - 1] ^= 1;
    });
    edit(&paths.idx, |b| {
        let n = b.len();
        b[n - 21] ^= 1;
    });
    fix_trailer(&paths.idx);
    source.refused(&[&p(&paths.pack), "trailing checksum does not match"]);
}

#[test]
fn bit_flip_in_a_git_written_pack_is_caught_by_the_trailer() {
    let mut source = small_repo("pack-bitflip");
    git(&source.path, &["repack", "-adq"]);
    let pack = pack_files(&source.git_dir)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "pack"))
        .expect("a pack");
    edit(&pack, |b| {
        let mid = b.len() / 2;
        b[mid] ^= 0x10;
    });
    source.refused(&[&p(&pack), "trailing checksum does not match"]);
}

// ------------------------------------------------------------------ entry headers

#[test]
fn bit_flip_in_entry_type() {
    // Type 3 (blob) -> 5 (reserved), with CRC and trailers made to match:
    // the entry decoder must notice on its own.
    let mut entries = vec![blob_entry(A), blob_entry(B)];
    let second = offsets(&entries)[1];
    entries[1].bytes[0] = (entries[1].bytes[0] & 0x8f) | (5 << 4);
    let (mut source, paths) = repo_with("pack-type", &entries);
    source.refused(&[
        &p(&paths.pack),
        &format!("entry at offset {second} has invalid type code 5"),
    ]);
}

#[test]
fn size_varint_that_overflows() {
    let mut e = blob_entry(A);
    let mut bytes = vec![0xb0];
    bytes.extend([0xff; 10]);
    bytes.push(0x7f);
    bytes.extend(zlib(A));
    e.bytes = bytes;
    let (mut source, paths) = repo_with("pack-size-overflow", &[e]);
    source.refused(&[&p(&paths.pack), "offset 12 has an overflowing size"]);
}

#[test]
fn corrupt_zlib_stream() {
    let mut e = blob_entry(B);
    let n = e.bytes.len();
    e.bytes[n - 8] ^= 0xff; // inside the deflate data
    e.bytes[n - 7] ^= 0xff;
    let (mut source, paths) = repo_with("pack-zlib", &[blob_entry(A), e]);
    let second = 12 + blob_entry(A).bytes.len();
    source.refused(&[&p(&paths.pack), &format!("offset {second}")]);
}

// ------------------------------------------------------------------ sizes that lie

#[test]
fn zlib_bomb_declared_size_huge() {
    // Declares 1 TiB, inflates to 11 bytes: nothing is reserved up front.
    let mut bytes = entry_header(3, 1 << 40);
    bytes.extend(zlib(A));
    let e = RawEntry {
        bytes,
        name: object_name("blob", A),
    };
    let (mut source, paths) = repo_with("pack-bomb-declared", &[e]);
    source.refused(&[
        &p(&paths.pack),
        "entry at offset 12 inflates to 11 bytes, header says 1099511627776",
    ]);
}

#[test]
fn zlib_bomb_inflated_size_huge() {
    // Declares 100 bytes; the stream would inflate to 64 MiB of zeros.
    // Inflation stops right after the declared size.
    let zeros = vec![0u8; 64 << 20];
    let mut bytes = entry_header(3, 100);
    bytes.extend(zlib(&zeros));
    let e = RawEntry {
        bytes,
        name: fake_name(1),
    };
    let (mut source, paths) = repo_with("pack-bomb-inflated", &[e]);
    source.refused(&[
        &p(&paths.pack),
        "entry at offset 12 inflates to",
        "header says 100",
    ]);
}

#[test]
fn entry_size_smaller_than_its_stream() {
    let mut bytes = entry_header(3, 4);
    bytes.extend(zlib(B));
    let e = RawEntry {
        bytes,
        name: fake_name(2),
    };
    let (mut source, paths) = repo_with("pack-size-short", &[e]);
    source.refused(&[&p(&paths.pack), "offset 12", "header says 4"]);
}

#[test]
fn zlib_bomb_memory_stays_bounded() {
    // In-process, to see the buffer: a 64 MiB bomb declared as 100 bytes
    // leaves a buffer of at most the first reservation (8 MiB), and one
    // declared as 1 TiB that yields 11 bytes reserves no more either.
    use git_rehash::hash::HashKind;
    use git_rehash::pack::PackFile;
    for (declared, body) in [(100u64, vec![0u8; 64 << 20]), (1 << 40, A.to_vec())] {
        let mut bytes = entry_header(3, declared);
        bytes.extend(zlib(&body));
        let e = RawEntry {
            bytes,
            name: fake_name(declared),
        };
        let dir = scratch_dir("bomb-memory");
        let pack = dir.join("bomb.pack");
        std::fs::write(&pack, pack_bytes(&[e])).unwrap();
        let file = PackFile::open(&pack, HashKind::Sha1).unwrap();
        let entry = file.entry_at(12).unwrap();
        let mut out = Vec::new();
        let err = file.inflate(&entry, &mut out).unwrap_err().to_string();
        assert!(err.contains("offset 12"), "{err}");
        assert!(out.capacity() <= 8 << 20, "capacity {}", out.capacity());
    }
}

// ------------------------------------------------------------------ delta bases

#[test]
fn ofs_delta_before_pack_start() {
    let base = blob_entry(A);
    let d = delta(A.len() as u64, 3, &[0x90, 3]);
    let bad = ofs_delta_entry(1000, &d, fake_name(3));
    let at = 12 + base.bytes.len();
    let (mut source, paths) = repo_with("pack-ofs-before", &[base, bad]);
    source.refused(&[
        &p(&paths.pack),
        &format!("delta at offset {at} has base offset"),
    ]);
}

#[test]
fn ofs_delta_pointing_at_itself() {
    let base = blob_entry(A);
    let d = delta(A.len() as u64, 3, &[0x90, 3]);
    let bad = ofs_delta_entry(0, &d, fake_name(4));
    let at = 12 + base.bytes.len();
    let (mut source, paths) = repo_with("pack-ofs-self", &[base, bad]);
    source.refused(&[
        &p(&paths.pack),
        &format!("delta at offset {at} has base offset {at}, which is not an earlier entry"),
    ]);
}

#[test]
fn ofs_delta_into_the_middle_of_an_entry() {
    let base = blob_entry(A);
    let d = delta(A.len() as u64, 3, &[0x90, 3]);
    let bad = ofs_delta_entry(base.bytes.len() as u64 - 2, &d, fake_name(5));
    let at = 12 + base.bytes.len();
    let (mut source, paths) = repo_with("pack-ofs-middle", &[base, bad]);
    source.refused(&[
        &p(&paths.pack),
        &format!("delta at offset {at} has base offset 14"),
    ]);
}

#[test]
fn ref_delta_to_missing_base() {
    let base = blob_entry(A);
    let d = delta(5, 3, &[0x90, 3]);
    let missing = fake_name(6);
    let bad = ref_delta_entry(missing, &d, fake_name(7));
    let at = 12 + base.bytes.len();
    let (mut source, paths) = repo_with("pack-ref-missing", &[base, bad]);
    source.refused(&[
        &p(&paths.pack),
        &format!("delta at offset {at} needs base {}", hex(&missing)),
    ]);
}

#[test]
fn ref_delta_cycle() {
    let (x, y) = (fake_name(8), fake_name(9));
    let d = delta(3, 3, &[0x90, 3]);
    let (mut source, paths) = repo_with(
        "pack-cycle",
        &[ref_delta_entry(y, &d, x), ref_delta_entry(x, &d, y)],
    );
    source.refused(&[&p(&paths.pack), "REF_DELTA cycle"]);
}

#[test]
fn delta_chain_deeper_than_any_sane_bound() {
    // 10 001 deltas on one base: one more than MAX_CHAIN_DEPTH. Refused
    // while linking the delta tree, before any delta is applied.
    let mut entries = vec![blob_entry(b"x")];
    let mut previous_len = entries[0].bytes.len() as u64;
    let mut size = 1u64;
    for n in 0..10_001u64 {
        let d = delta(size, size + 1, &[0x90, size as u8, 0x01, b'y']);
        let _ = n;
        let e = ofs_delta_entry(previous_len, &d, fake_name(100 + n));
        previous_len = e.bytes.len() as u64;
        entries.push(e);
        size = (size + 1) % 200 + 1; // keep copies small; content is irrelevant
    }
    let (mut source, paths) = repo_with("pack-deep", &entries);
    source.refused(&[
        &p(&paths.pack),
        "delta chain at offset",
        "deeper than 10000",
    ]);
}

// ------------------------------------------------------------------ delta opcodes

/// A base blob and one OFS_DELTA on it with instructions `ops`.
fn delta_case(label: &str, result_size: u64, ops: &[u8]) -> (Source, PackPaths, usize) {
    let base = blob_entry(B);
    let d = delta(B.len() as u64, result_size, ops);
    let at = 12 + base.bytes.len();
    let e = ofs_delta_entry(base.bytes.len() as u64, &d, fake_name(10));
    let (source, paths) = repo_with(label, &[base, e]);
    (source, paths, at)
}

#[test]
fn delta_copy_reads_past_the_base() {
    // copy offset 40, size 10 from a 41-byte base.
    let (mut source, paths, at) = delta_case("delta-copy-past", 10, &[0x91, 40, 10]);
    let stderr = source.refused(&[
        &p(&paths.pack),
        &format!("bad delta in entry at offset {at}"),
    ]);
    assert!(stderr.contains("past the base end 41"), "{stderr}");
}

#[test]
fn delta_writes_past_the_declared_result() {
    let (mut source, paths, at) = delta_case("delta-overflow", 2, &[0x03, b'a', b'b', b'c']);
    let stderr = source.refused(&[&p(&paths.pack), &format!("offset {at}")]);
    assert!(
        stderr.contains("writes past the declared result size 2"),
        "{stderr}"
    );
}

#[test]
fn delta_result_size_mismatch() {
    let (mut source, paths, at) = delta_case("delta-short", 9, &[0x03, b'a', b'b', b'c']);
    let stderr = source.refused(&[&p(&paths.pack), &format!("offset {at}")]);
    assert!(
        stderr.contains("delta produced 3 bytes, header says 9"),
        "{stderr}"
    );
}

#[test]
fn delta_base_size_mismatch() {
    let base = blob_entry(B);
    let d = delta(7, 3, &[0x90, 3]);
    let at = 12 + base.bytes.len();
    let e = ofs_delta_entry(base.bytes.len() as u64, &d, fake_name(11));
    let (mut source, paths) = repo_with("delta-base-size", &[base, e]);
    let stderr = source.refused(&[&p(&paths.pack), &format!("offset {at}")]);
    assert!(stderr.contains("expects a base of 7 bytes"), "{stderr}");
}

#[test]
fn delta_reserved_opcode_and_truncated_instruction() {
    let (mut source, paths, at) = delta_case("delta-op0", 3, &[0x00]);
    let stderr = source.refused(&[&p(&paths.pack), &format!("offset {at}")]);
    assert!(stderr.contains("reserved delta opcode 0"), "{stderr}");
    let (mut source, paths, at) = delta_case("delta-trunc", 3, &[0x05, b'a']);
    let stderr = source.refused(&[&p(&paths.pack), &format!("offset {at}")]);
    assert!(stderr.contains("truncated"), "{stderr}");
}

// ------------------------------------------------------------------ index

#[test]
fn idx_fanout_not_monotonic() {
    let (mut source, paths) = two_blobs("idx-fanout");
    edit(&paths.idx, |b| {
        // fanout[10] = 0xff..: then fanout[11] is smaller.
        b[8 + 40..8 + 44].copy_from_slice(&[0, 0, 0, 9]);
    });
    fix_trailer(&paths.idx);
    source.refused(&[&p(&paths.idx), "non-monotonic fanout table at entry 11"]);
}

#[test]
fn idx_offset_past_the_pack() {
    let (mut source, paths) = two_blobs("idx-offset");
    let offsets_at = idx_offsets_at(2);
    edit(&paths.idx, |b| {
        b[offsets_at..offsets_at + 4].copy_from_slice(&100_000u32.to_be_bytes())
    });
    fix_trailer(&paths.idx);
    source.refused(&[
        &p(&paths.idx),
        "at offset 100000, outside the pack's entries",
    ]);
}

#[test]
fn two_idx_entries_at_one_offset() {
    let (mut source, paths) = two_blobs("idx-same-offset");
    let offsets_at = idx_offsets_at(2);
    // Both at the first entry's offset, right after the 12-byte header.
    edit(&paths.idx, |b| {
        b[offsets_at..offsets_at + 4].copy_from_slice(&12u32.to_be_bytes());
        b[offsets_at + 4..offsets_at + 8].copy_from_slice(&12u32.to_be_bytes())
    });
    fix_trailer(&paths.idx);
    source.refused(&[&p(&paths.pack), "two index entries point at offset 12"]);
}

#[test]
fn idx_crc_mismatch() {
    let (mut source, paths) = two_blobs("idx-crc");
    let crcs_at = idx_crcs_at(2);
    edit(&paths.idx, |b| b[crcs_at] ^= 0x55);
    fix_trailer(&paths.idx);
    let mut names = [object_name("blob", A), object_name("blob", B)];
    names.sort();
    let first = hex(&names[0]);
    source.refused(&[
        &p(&paths.pack),
        &first,
        "CRC32 does not match the pack index",
    ]);
}

#[test]
fn idx_names_not_sorted() {
    let (mut source, paths) = two_blobs("idx-unsorted");
    let mut names = [object_name("blob", A), object_name("blob", B)];
    names.sort();
    edit(&paths.idx, |b| {
        // Swap the two names (keeping them in their fanout buckets is
        // impossible, so either check may fire: both are "unsorted").
        let at = IDX_NAMES_AT;
        b[at..at + 20].copy_from_slice(&names[1]);
        b[at + 20..at + 40].copy_from_slice(&names[0]);
    });
    fix_trailer(&paths.idx);
    source.refused(&[&p(&paths.idx), "names are not sorted"]);
}

#[test]
fn idx_trailer_mismatch() {
    let (mut source, paths) = two_blobs("idx-trailer");
    edit(&paths.idx, |b| {
        let n = b.len();
        b[n - 1] ^= 0x01;
    });
    source.refused(&[&p(&paths.idx), "trailing checksum does not match"]);
}

#[test]
fn idx_belongs_to_another_pack() {
    let (mut source, paths) = two_blobs("idx-other-pack");
    edit(&paths.idx, |b| {
        let n = b.len();
        b[n - 30] ^= 0x01; // the copy of the pack trailer
    });
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
