//! The blob pass: append every blob to the output pack.
//!
//! A blob's bytes are the same in both hash worlds, so a blob stored whole
//! in a source pack is copied as its zlib stream, without inflating or
//! deflating; its CRC32 from the source idx is checked first so that a
//! damaged stream is never propagated. Blobs stored as deltas or loose are
//! inflated and deflated again (a later pass may copy deltas as well).
//! Blobs an earlier run converted (they have map rows) are skipped.

use std::cell::RefCell;

use rayon::prelude::*;

use super::ConvertError;
use super::deflate::deflate;
use super::inventory::Inventory;
use super::journal::SegmentWriter;
use super::progress::Progress;
use super::table::{Location, ObjectTable};
use crate::object::ObjectKind;
use crate::pack::{DeltaCache, EntryKind, Pack};

const CHUNK: usize = 4096;

thread_local! {
    static CACHE: RefCell<DeltaCache> = RefCell::new(DeltaCache::new(super::map_pass::CACHE_BYTES_PER_THREAD));
}

enum Payload<'a> {
    /// The source entry's zlib stream, copied as is.
    Copied(&'a [u8]),
    Deflated(Vec<u8>),
}

pub fn blob_pass(
    inventory: &Inventory,
    table: &ObjectTable,
    level: u32,
    pack: &mut SegmentWriter<'_>,
    progress: &dyn Progress,
) -> Result<u64, ConvertError> {
    // Source order: sequential reads of each pack, and bases before deltas.
    let mut blobs: Vec<u32> = table
        .indices()
        .filter(|&i| table.kind(i) == Some(ObjectKind::Blob) && !table.is_mapped(i))
        .collect();
    let order = |i: &u32| match table.location(*i) {
        Location::Packed { pack, offset } => (pack, offset),
        Location::Loose => (u32::MAX, u64::from(*i)),
    };
    blobs.sort_by_key(order);
    progress.start("writing blobs", Some(blobs.len() as u64));
    let entry_ends: Vec<Vec<u64>> = inventory.packs.iter().map(entry_ends).collect();
    let mut copied = 0u64;
    for chunk in blobs.chunks(CHUNK) {
        let payloads: Vec<(u32, u64, Payload<'_>)> = chunk
            .par_iter()
            .map(|&at| payload(inventory, table, &entry_ends, at, level))
            .collect::<Result<_, _>>()?;
        for (at, size, payload) in payloads {
            let id = table.sha256(at).expect("blobs are named during the scan");
            let sha1 = table.sha1(at);
            match payload {
                Payload::Copied(zlib) => {
                    copied += 1;
                    pack.add_compressed(sha1, id, ObjectKind::Blob, size, zlib)?
                }
                Payload::Deflated(zlib) => {
                    pack.add_compressed(sha1, id, ObjectKind::Blob, size, &zlib)?
                }
            };
        }
        progress.advance(chunk.len() as u64);
        pack.checkpoint()?;
    }
    progress.finish();
    Ok(copied)
}

fn payload<'a>(
    inventory: &'a Inventory,
    table: &ObjectTable,
    entry_ends: &[Vec<u64>],
    at: u32,
    level: u32,
) -> Result<(u32, u64, Payload<'a>), ConvertError> {
    if let Location::Packed {
        pack: pack_no,
        offset,
    } = table.location(at)
    {
        let pack = &inventory.packs[pack_no as usize];
        let entry = pack.data.entry_at(offset)?;
        if let EntryKind::Base(ObjectKind::Blob) = entry.kind {
            let end = entry_end(&entry_ends[pack_no as usize], offset);
            let whole = pack.data.raw(offset..end)?;
            if let Some(i) = pack.idx.lookup(&table.sha1(at))
                && let Some(expected) = pack.idx.crc32_at(i)
                && crc32fast::hash(whole) != expected
            {
                return Err(ConvertError::CrcMismatch {
                    id: table.sha1(at),
                    file: inventory.pack_paths[pack_no as usize].display().to_string(),
                    offset,
                });
            }
            let data_start = entry.data_offset - offset;
            return Ok((
                at,
                entry.size,
                Payload::Copied(&whole[data_start as usize..]),
            ));
        }
    }
    let mut body = Vec::new();
    let kind = CACHE.with_borrow_mut(|cache| inventory.read(table, at, cache, &mut body))?;
    debug_assert_eq!(kind, ObjectKind::Blob);
    Ok((
        at,
        body.len() as u64,
        Payload::Deflated(deflate(&body, level)),
    ))
}

/// Every entry's start offset, sorted, then the end of the last entry.
fn entry_ends(pack: &Pack) -> Vec<u64> {
    let mut ends: Vec<u64> = (0..pack.idx.num_objects())
        .map(|i| pack.idx.offset_at(i))
        .collect();
    ends.push(pack.data.data_end() as u64);
    ends.sort_unstable();
    ends
}

/// The end of the entry at `offset`: the next entry's offset, or the start
/// of the trailer.
fn entry_end(sorted_ends: &[u64], offset: u64) -> u64 {
    let i = sorted_ends.partition_point(|&o| o <= offset);
    sorted_ends[i]
}
