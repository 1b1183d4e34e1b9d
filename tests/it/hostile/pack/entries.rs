//! Entry headers that lie: invalid types, overflowing sizes, corrupt zlib
//! streams, and sizes that do not match what the stream inflates to
//! (zlib bombs among them, which must not cost their declared memory).

use super::{A, B, p, repo_with};
use crate::support::library::{HashKind, PackFile};
use crate::support::raw_object::{fake_name, object_name};
use crate::support::raw_pack::{RawEntry, blob_entry, entry_header, offsets, pack_bytes, zlib};
use crate::support::scratch::scratch_dir;

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
