//! Pack index version 2 (`.idx`): git's `write_idx_file` in `pack-write.c`,
//! format "Version 2 pack-*.idx files" in `Documentation/gitformat-pack.txt`
//! (gitformat-pack, "Version 2 pack-*.idx files").

use std::io::{self, Write};
use std::path::Path;

use rayon::prelude::*;

use crate::hash::{HashKind, ObjectId};
use crate::pack::error::PackWriteError;
use crate::pack::hashfile::write_checksummed_file;

/// `"\377tOc"`, which no version 1 index can start with.
const IDX_MAGIC: [u8; 4] = [0xff, b't', b'O', b'c'];
const IDX_VERSION: u32 = 2;
/// Offsets above this go to the 64-bit table (git's default `off32_limit`).
const MAX_OFF32: u64 = 0x7fff_ffff;
/// Marks a 32-bit offset slot that holds an index into the 64-bit table.
const LARGE_OFFSET_FLAG: u32 = 0x8000_0000;

/// What the index records about one pack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub id: ObjectId,
    /// Offset of the entry header in the pack.
    pub offset: u64,
    /// CRC32 of the whole packed entry (header, delta base, zlib stream).
    pub crc32: u32,
}

impl From<(ObjectId, u64, u32)> for IndexEntry {
    /// From `(id, offset, crc32)`.
    fn from((id, offset, crc32): (ObjectId, u64, u32)) -> Self {
        IndexEntry { id, offset, crc32 }
    }
}

/// Writes the index of a pack to `path`, durably (`durable.rs`); returns the index checksum (its trailer). Sorts `entries` by id and
/// rejects duplicates and ids of another hash kind.
pub fn write_idx_v2(
    path: &Path,
    hash: HashKind,
    entries: &mut [IndexEntry],
    pack_checksum: &ObjectId,
) -> Result<ObjectId, PackWriteError> {
    sort_and_check(hash, entries, pack_checksum)?;
    let (checksum, _) =
        write_checksummed_file(path, hash, |out| write_idx_to(out, entries, pack_checksum))?;
    Ok(checksum)
}

/// Sorts by id (memcmp order, which is how git bisects the name table) and
/// checks what git's reader relies on: one hash kind, no duplicate ids, a
/// count that fits the fanout table.
pub(crate) fn sort_and_check(
    hash: HashKind,
    entries: &mut [IndexEntry],
    pack_checksum: &ObjectId,
) -> Result<(), PackWriteError> {
    check_ids(hash, entries, pack_checksum)?;
    // Names are uniform: their leading 8 bytes decide nearly every
    // comparison without a call to memcmp. Hundreds of thousands of
    // entries for a large pack, sorted while nothing else runs.
    entries.par_sort_unstable_by(|a, b| {
        (a.id.leading_u64().cmp(&b.id.leading_u64())).then_with(|| a.id.cmp(&b.id))
    });
    if let Some(pair) = entries.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(PackWriteError::DuplicateObject { id: pair[0].id });
    }
    Ok(())
}

/// Checks what every index of a pack relies on: the pack's checksum and
/// every entry's id of kind `hash`, and a count that fits 32 bits.
pub(crate) fn check_ids(
    hash: HashKind,
    entries: &[IndexEntry],
    pack_checksum: &ObjectId,
) -> Result<(), PackWriteError> {
    check_kind(hash, pack_checksum)?;
    if u32::try_from(entries.len()).is_err() {
        return Err(PackWriteError::TooManyEntries {
            count: entries.len(),
        });
    }
    for e in entries {
        check_kind(hash, &e.id)?;
    }
    Ok(())
}

pub(crate) fn check_kind(hash: HashKind, id: &ObjectId) -> Result<(), PackWriteError> {
    if id.kind() == hash {
        Ok(())
    } else {
        Err(PackWriteError::WrongHashKind {
            id: *id,
            expected: hash,
        })
    }
}

/// Writes the index of entries already sorted and checked by
/// [`sort_and_check`], all but its own checksum (`out` adds that).
pub(crate) fn write_idx_to(
    out: &mut impl Write,
    entries: &[IndexEntry],
    pack_checksum: &ObjectId,
) -> io::Result<()> {
    out.write_all(&IDX_MAGIC)?;
    out.write_all(&IDX_VERSION.to_be_bytes())?;

    // fanout[b] = number of ids whose first byte is <= b.
    let mut fanout = [0u32; 256];
    for e in entries {
        fanout[usize::from(e.id.as_bytes()[0])] += 1;
    }
    let mut running = 0u32;
    for slot in fanout {
        running += slot;
        out.write_all(&running.to_be_bytes())?;
    }

    for e in entries {
        out.write_all(e.id.as_bytes())?;
    }
    for e in entries {
        out.write_all(&e.crc32.to_be_bytes())?;
    }
    // Large offsets are numbered in id order, as git does.
    let mut large = 0u32;
    for e in entries {
        let slot = if e.offset > MAX_OFF32 {
            large += 1;
            LARGE_OFFSET_FLAG | (large - 1)
        } else {
            e.offset as u32
        };
        out.write_all(&slot.to_be_bytes())?;
    }
    for e in entries.iter().filter(|e| e.offset > MAX_OFF32) {
        out.write_all(&e.offset.to_be_bytes())?;
    }

    out.write_all(pack_checksum.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest as _;

    fn id(first: u8, fill: u8) -> ObjectId {
        let mut raw = [fill; 32];
        raw[0] = first;
        ObjectId::Sha256(raw)
    }

    fn be32(b: &[u8], at: usize) -> u32 {
        u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
    }

    fn be64(b: &[u8], at: usize) -> u64 {
        u64::from_be_bytes(b[at..at + 8].try_into().unwrap())
    }

    #[test]
    fn large_offsets_go_to_the_64_bit_table() {
        let big = 0x8000_0000u64;
        let mut entries = vec![
            IndexEntry {
                id: id(0xf0, 1),
                offset: 5 * big + 7,
                crc32: 1,
            },
            IndexEntry {
                id: id(0x00, 2),
                offset: 12,
                crc32: 2,
            },
            IndexEntry {
                id: id(0x7f, 3),
                offset: MAX_OFF32,
                crc32: 3,
            },
            IndexEntry {
                id: id(0x80, 4),
                offset: big,
                crc32: 4,
            },
            IndexEntry {
                id: id(0x00, 5),
                offset: 1 << 40,
                crc32: 5,
            },
        ];
        let pack_sum = id(0xaa, 0xbb);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("test.idx");
        let sum = write_idx_v2(&path, HashKind::Sha256, &mut entries, &pack_sum).unwrap();
        let b = std::fs::read(&path).unwrap();

        let n = 5;
        assert_eq!(b.len(), 1032 + n * 40 + 3 * 8 + 64);
        assert_eq!(&b[..4], b"\xfftOc");
        assert_eq!(be32(&b, 4), 2);
        let fanout = |i: usize| be32(&b, 8 + 4 * i);
        assert_eq!(fanout(0x00), 2);
        assert_eq!(fanout(0x7e), 2);
        assert_eq!(fanout(0x7f), 3);
        assert_eq!(fanout(0x80), 4);
        assert_eq!(fanout(0xef), 4);
        assert_eq!(fanout(0xff), 5);

        let names = 1032;
        let crcs = names + n * 32;
        let off32 = crcs + n * 4;
        let off64 = off32 + n * 4;
        // Sorted by id: (00,2) (00,5) (7f) (80) (f0).
        let sorted_ids = [id(0, 2), id(0, 5), id(0x7f, 3), id(0x80, 4), id(0xf0, 1)];
        for (i, want) in sorted_ids.iter().enumerate() {
            assert_eq!(&b[names + 32 * i..names + 32 * (i + 1)], want.as_bytes());
        }
        let crc_list: Vec<u32> = (0..n).map(|i| be32(&b, crcs + 4 * i)).collect();
        assert_eq!(crc_list, [2, 5, 3, 4, 1]);

        let resolve = |i: usize| {
            let slot = be32(&b, off32 + 4 * i);
            if slot & LARGE_OFFSET_FLAG != 0 {
                be64(&b, off64 + 8 * (slot & !LARGE_OFFSET_FLAG) as usize)
            } else {
                u64::from(slot)
            }
        };
        let offsets: Vec<u64> = (0..n).map(resolve).collect();
        assert_eq!(offsets, [12, 1 << 40, MAX_OFF32, big, 5 * big + 7]);
        // Large-offset slots are numbered in id order.
        assert_eq!(be32(&b, off32 + 4), LARGE_OFFSET_FLAG);
        assert_eq!(be32(&b, off32 + 12), LARGE_OFFSET_FLAG | 1);
        assert_eq!(be32(&b, off32 + 16), LARGE_OFFSET_FLAG | 2);

        let tail = off64 + 3 * 8;
        assert_eq!(&b[tail..tail + 32], pack_sum.as_bytes());
        let digest: [u8; 32] = sha2::Sha256::digest(&b[..tail + 32]).into();
        assert_eq!(&b[tail + 32..], digest);
        assert_eq!(sum, ObjectId::Sha256(digest));
    }

    #[test]
    fn an_entry_costs_48_bytes() {
        // The writer keeps one per object; the module docs promise this.
        assert!(std::mem::size_of::<IndexEntry>() <= 48);
    }

    #[test]
    fn rejects_duplicates_and_foreign_ids() {
        let pack_sum = id(0xaa, 0xbb);
        let mut dup = vec![
            IndexEntry {
                id: id(3, 3),
                offset: 12,
                crc32: 0,
            },
            IndexEntry {
                id: id(3, 3),
                offset: 40,
                crc32: 0,
            },
        ];
        let err = sort_and_check(HashKind::Sha256, &mut dup, &pack_sum).unwrap_err();
        assert!(matches!(err, PackWriteError::DuplicateObject { id: d } if d == id(3, 3)));

        let mut sha1 = vec![IndexEntry {
            id: HashKind::Sha1.empty_blob(),
            offset: 12,
            crc32: 0,
        }];
        let err = sort_and_check(HashKind::Sha256, &mut sha1, &pack_sum).unwrap_err();
        assert!(matches!(
            err,
            PackWriteError::WrongHashKind {
                expected: HashKind::Sha256,
                ..
            }
        ));
    }
}
