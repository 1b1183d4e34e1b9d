//! Whole-file checks of every source pack before anything is written
//! (git's `verify_pack_index()` and `verify_packfile()` in pack-check.c,
//! minus the per-object inflate that the scan does anyway).
//!
//! * the `.idx` trailer and the `.pack` trailer, recomputed with the fast
//!   (non collision detecting) SHA-1: they guard against corruption, not
//!   attacks, and collisions are caught per object by the scan's sha1dc;
//! * every index offset lies inside the pack's entry data;
//! * every v2 CRC32 matches its entry's bytes. Entries are contiguous in a
//!   pack git accepts (index-pack reads them back to back), so an entry's
//!   bytes run from its offset to the next entry's offset, or the trailer.
//!
//! Cost: one sequential read of each file over its mmap (SHA-1 at about
//! 1.8 GB/s from the page cache, CRC32 several times faster), the trailer
//! hash and the CRC pass running on two threads. `convert` runs them beside
//! the scan (they decide before anything is written, and their error wins
//! over the scan's), so on two or more cores they cost next to no wall
//! time; there is no option to skip them.

use super::file::PACK_HEADER_LEN;
use super::resolve::Pack;
use crate::hash::ObjectId;
use crate::pack::error::PackError;

/// Checks the trailers, offsets and CRC32s of `pack`.
pub fn verify_pack(pack: &Pack) -> Result<(), PackError> {
    pack.idx.verify_checksum()?;
    let (trailer, entries) = rayon::join(|| pack.data.verify_checksum(), || check_entries(pack));
    match (trailer, entries) {
        // A damaged entry names the object it holds and where; the
        // trailer only says that something in the file changed.
        (_, Err(crc @ PackError::CrcMismatch { .. })) => Err(crc),
        (trailer, entries) => trailer.and(entries),
    }
}

fn check_entries(pack: &Pack) -> Result<(), PackError> {
    let idx = &pack.idx;
    let data_end = pack.data.data_end() as u64;
    let by_offset = pack.entries_by_offset()?;
    for &(offset, i) in by_offset {
        if offset < PACK_HEADER_LEN || offset >= data_end {
            return Err(PackError::IdxOffsetOutOfRange {
                idx: idx.path().to_owned(),
                id: idx.oid_at(i),
                offset,
                data_end,
            });
        }
    }
    match crc_mismatches(pack, true)?.first() {
        Some(&(id, offset)) => Err(PackError::CrcMismatch {
            id,
            file: pack.data.path().display().to_string(),
            offset,
        }),
        None => Ok(()),
    }
}

/// The entries of `pack` whose bytes do not match the CRC32 its `.idx`
/// records (none for an idx v1, which records none), by offset: all of
/// them, or with `first_only` the first. An offset outside the pack's
/// entry data (which [`verify_pack`] checks first) is an error.
pub fn crc_mismatches(pack: &Pack, first_only: bool) -> Result<Vec<(ObjectId, u64)>, PackError> {
    let idx = &pack.idx;
    let data_end = pack.data.data_end() as u64;
    let by_offset = pack.entries_by_offset()?;
    let mut out = Vec::new();
    for (n, &(offset, i)) in by_offset.iter().enumerate() {
        let Some(expected) = idx.crc32_at(i) else {
            break;
        };
        let end = by_offset.get(n + 1).map_or(data_end, |&(next, _)| next);
        let bytes = pack.data.raw(offset..end)?;
        if crc32fast::hash(bytes) != expected {
            out.push((idx.oid_at(i), offset));
            if first_only {
                break;
            }
        }
    }
    Ok(out)
}
