//! Deltas whose base is not where they say (before the pack, themselves,
//! the middle of an entry, missing, a cycle, too deep a chain) and delta
//! instructions that read or write out of bounds.

use super::{A, B, p, repo_with};
use crate::support::raw_object::{fake_name, hex};
use crate::support::raw_pack::{
    PackPaths, RawEntry, blob_entry, delta, ofs_delta_entry, ref_delta_entry,
};
use crate::support::watched_source::Source;

/// A repository whose pack holds a whole blob of `base` and, right after
/// it, the delta entry `delta_entry` makes from the base entry's length;
/// also returns the delta entry's offset.
fn base_then(
    label: &str,
    base: &[u8],
    delta_entry: impl FnOnce(u64) -> RawEntry,
) -> (Source, PackPaths, usize) {
    let base = blob_entry(base);
    let at = 12 + base.bytes.len();
    let second = delta_entry(base.bytes.len() as u64);
    let (source, paths) = repo_with(label, &[base, second]);
    (source, paths, at)
}

/// A base blob and one OFS_DELTA on it with instructions `ops`.
fn delta_case(label: &str, result_size: u64, ops: &[u8]) -> (Source, PackPaths, usize) {
    let d = delta(B.len() as u64, result_size, ops);
    base_then(label, B, |len| ofs_delta_entry(len, &d, fake_name(10)))
}

/// [`delta_case`] converted: refused naming the pack and the delta's
/// offset. Returns stderr.
fn refused_delta(label: &str, result_size: u64, ops: &[u8]) -> String {
    let (mut source, paths, at) = delta_case(label, result_size, ops);
    source.refused(&[&p(&paths.pack), &format!("offset {at}")])
}

/// A well-formed delta on [`A`]: its first three bytes.
fn first_three_of_a() -> Vec<u8> {
    delta(A.len() as u64, 3, &[0x90, 3])
}

#[test]
fn ofs_delta_before_pack_start() {
    let d = first_three_of_a();
    let (mut source, paths, at) = base_then("pack-ofs-before", A, |_| {
        ofs_delta_entry(1000, &d, fake_name(3))
    });
    source.refused(&[
        &p(&paths.pack),
        &format!("delta at offset {at} has base offset"),
    ]);
}

#[test]
fn ofs_delta_pointing_at_itself() {
    let d = first_three_of_a();
    let (mut source, paths, at) =
        base_then("pack-ofs-self", A, |_| ofs_delta_entry(0, &d, fake_name(4)));
    source.refused(&[
        &p(&paths.pack),
        &format!("delta at offset {at} has base offset {at}, which is not an earlier entry"),
    ]);
}

#[test]
fn ofs_delta_into_the_middle_of_an_entry() {
    let d = first_three_of_a();
    let (mut source, paths, at) = base_then("pack-ofs-middle", A, |len| {
        ofs_delta_entry(len - 2, &d, fake_name(5))
    });
    source.refused(&[
        &p(&paths.pack),
        &format!("delta at offset {at} has base offset 14"),
    ]);
}

#[test]
fn ref_delta_to_missing_base() {
    let d = delta(5, 3, &[0x90, 3]);
    let missing = fake_name(6);
    let (mut source, paths, at) = base_then("pack-ref-missing", A, |_| {
        ref_delta_entry(missing, &d, fake_name(7))
    });
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
    let stderr = refused_delta("delta-overflow", 2, &[0x03, b'a', b'b', b'c']);
    assert!(
        stderr.contains("writes past the declared result size 2"),
        "{stderr}"
    );
}

#[test]
fn delta_result_size_mismatch() {
    let stderr = refused_delta("delta-short", 9, &[0x03, b'a', b'b', b'c']);
    assert!(
        stderr.contains("delta produced 3 bytes, header says 9"),
        "{stderr}"
    );
}

#[test]
fn delta_base_size_mismatch() {
    let d = delta(7, 3, &[0x90, 3]);
    let (mut source, paths, at) = base_then("delta-base-size", B, |len| {
        ofs_delta_entry(len, &d, fake_name(11))
    });
    let stderr = source.refused(&[&p(&paths.pack), &format!("offset {at}")]);
    assert!(stderr.contains("expects a base of 7 bytes"), "{stderr}");
}

#[test]
fn delta_reserved_opcode_and_truncated_instruction() {
    let stderr = refused_delta("delta-op0", 3, &[0x00]);
    assert!(stderr.contains("reserved delta opcode 0"), "{stderr}");
    let stderr = refused_delta("delta-trunc", 3, &[0x05, b'a']);
    assert!(stderr.contains("truncated"), "{stderr}");
}
