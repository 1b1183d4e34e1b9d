//! Reverse index (`.rev`, RIDX version 1): git's `write_rev_file` in
//! `pack-write.c`, format "pack-*.rev files have the format" in
//! `Documentation/gitformat-pack.txt`.

use std::io::{self, Write};
use std::path::Path;

use rayon::prelude::*;

use super::write::{IndexEntry, check_ids};
use crate::hash::{HashKind, ObjectId};
use crate::pack::error::PackWriteError;
use crate::pack::hashfile::write_checksummed_file;

const RIDX_MAGIC: [u8; 4] = *b"RIDX";
const RIDX_VERSION: u32 = 1;

/// Writes the reverse index of a pack to `path`, durably (`durable.rs`); returns its checksum. `entries_sorted_by_id` is the index
/// order (as left by [`super::write::write_idx_v2`]); anything else is an error,
/// because the positions written are positions in that order.
pub fn write_rev(
    path: &Path,
    hash: HashKind,
    entries_sorted_by_id: &[IndexEntry],
    pack_checksum: &ObjectId,
) -> Result<ObjectId, PackWriteError> {
    check_sorted(hash, entries_sorted_by_id, pack_checksum)?;
    let (checksum, _) = write_checksummed_file(path, hash, |out| {
        write_rev_to(out, hash, entries_sorted_by_id, pack_checksum)
    })?;
    Ok(checksum)
}

fn check_sorted(
    hash: HashKind,
    entries: &[IndexEntry],
    pack_checksum: &ObjectId,
) -> Result<(), PackWriteError> {
    check_ids(hash, entries, pack_checksum)?;
    for pair in entries.windows(2) {
        match pair[0].id.cmp(&pair[1].id) {
            std::cmp::Ordering::Less => {}
            std::cmp::Ordering::Equal => {
                return Err(PackWriteError::DuplicateObject { id: pair[1].id });
            }
            std::cmp::Ordering::Greater => {
                return Err(PackWriteError::UnsortedEntries { id: pair[1].id });
            }
        }
    }
    Ok(())
}

/// Writes the reverse index of entries already checked to be in index
/// order, all but its own checksum (`out` adds that).
pub(crate) fn write_rev_to(
    out: &mut impl Write,
    hash: HashKind,
    entries_sorted_by_id: &[IndexEntry],
    pack_checksum: &ObjectId,
) -> io::Result<()> {
    out.write_all(&RIDX_MAGIC)?;
    out.write_all(&RIDX_VERSION.to_be_bytes())?;
    out.write_all(&hash.format_id().to_be_bytes())?;

    // Index positions in pack order: 4 bytes per object, the only extra
    // memory this needs.
    let mut positions: Vec<u32> = (0..entries_sorted_by_id.len())
        .map(|i| u32::try_from(i).expect("count checked to fit u32"))
        .collect();
    // Offsets are unique: no stable sort needed.
    positions.par_sort_unstable_by_key(|&i| entries_sorted_by_id[i as usize].offset);
    for pos in positions {
        out.write_all(&pos.to_be_bytes())?;
    }

    out.write_all(pack_checksum.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::hashfile::HashFile;

    fn entry(first: u8, offset: u64) -> IndexEntry {
        let mut raw = [0u8; 32];
        raw[0] = first;
        IndexEntry {
            id: ObjectId::Sha256(raw),
            offset,
            crc32: 0,
        }
    }

    #[test]
    fn positions_follow_pack_order() {
        let entries = [
            entry(1, 300),
            entry(2, 12),
            entry(3, 1 << 33),
            entry(4, 100),
        ];
        let pack_sum = ObjectId::Sha256([7; 32]);
        let mut file = HashFile::new(Vec::new(), HashKind::Sha256);
        write_rev_to(&mut file, HashKind::Sha256, &entries, &pack_sum).unwrap();
        let (out, _) = file.finish_with_trailer().unwrap();
        assert_eq!(&out[..12], b"RIDX\0\0\0\x01\0\0\0\x02");
        let positions: Vec<u32> = out[12..28]
            .chunks(4)
            .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(positions, [1, 3, 0, 2]);
        assert_eq!(&out[28..60], pack_sum.as_bytes());
        assert_eq!(out.len(), 12 + 16 + 64);
    }

    #[test]
    fn rejects_unsorted_input() {
        let entries = [entry(2, 12), entry(1, 40)];
        let pack_sum = ObjectId::Sha256([7; 32]);
        let err = check_sorted(HashKind::Sha256, &entries, &pack_sum).unwrap_err();
        assert!(matches!(err, PackWriteError::UnsortedEntries { .. }));
    }
}
