//! The blob pass: append every blob to the output pack.
//!
//! A blob's bytes are the same in both hash worlds, so a blob stored whole
//! in a source pack is copied as its zlib stream, without inflating or
//! deflating; its CRC32 from the source idx is checked first so that a
//! damaged stream is never propagated. A blob stored as a delta against
//! another blob is copied the same way, as its compressed delta, when its
//! base already sits in the same output segment (source order puts OFS
//! bases first); otherwise, and for loose blobs, it is inflated and
//! deflated again. Blobs an earlier run converted (they have map rows) are
//! skipped.

use rayon::prelude::*;

use super::ConvertError;
use super::chunking::chunks_within;
use super::deflate::deflate;
use super::inventory::Inventory;
use super::journal::SegmentWriter;
use super::pack_layout::PackLayout;
use super::progress::Progress;
use super::read_cache;
use super::table::{Location, ObjectTable};
use crate::hash::ObjectId;
use crate::object::ObjectKind;
use crate::pack::EntryKind;

/// A parallel chunk ends at this many blobs, or once its blobs take this
/// much room in the source (about what its re-deflated blobs hold in
/// memory until they are appended), whichever comes first: memory follows
/// the budget, not the size of the repository's files.
const CHUNK: usize = 4096;
const CHUNK_BYTES: u64 = 64 << 20;

enum Payload<'a> {
    /// The source entry's zlib stream, copied as is.
    Copied(&'a [u8]),
    /// The source entry's compressed delta against the blob `base` (SHA-1).
    Delta {
        base: ObjectId,
        zlib: &'a [u8],
    },
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
    let layouts: Vec<PackLayout> = inventory.packs.iter().map(PackLayout::new).collect();
    let mut copied = 0u64;
    let stored_size = |at: u32| match table.location(at) {
        Location::Packed { pack, offset } => layouts[pack as usize].entry_end(offset) - offset,
        Location::Loose => std::fs::metadata(crate::loose::loose_path(
            &inventory.objects_dir,
            &table.sha1(at),
        ))
        .map_or(0, |m| m.len()),
    };
    let chunks = chunks_within(&blobs, CHUNK, CHUNK_BYTES, stored_size);
    let prepare = |chunk: &[u32]| -> Result<Vec<Prepared<'_>>, ConvertError> {
        chunk
            .par_iter()
            .map(|&at| payload(inventory, table, &layouts, at, level))
            .collect()
    };
    // A pipeline of two: chunk k is appended (sequential: the pack stream
    // and its checksum) while chunk k+1's CRC checks and re-deflates run on
    // the other threads.
    let mut ready = chunks.first().map(|c| prepare(c)).transpose()?;
    for (k, chunk) in chunks.iter().enumerate() {
        let payloads = ready.take().expect("prepared before its turn");
        let (appended, next) = rayon::join(
            || append(inventory, table, level, pack, payloads),
            || chunks.get(k + 1).map(|c| prepare(c)).transpose(),
        );
        copied += appended?;
        ready = next?;
        progress.advance(chunk.len() as u64);
        pack.checkpoint()?;
    }
    progress.finish();
    Ok(copied)
}

/// A blob ready to append: table index, size, what goes into the pack.
type Prepared<'a> = (u32, u64, Payload<'a>);

/// Appends one chunk's blobs in order; returns how many went in as copies
/// of their source bytes.
fn append(
    inventory: &Inventory,
    table: &ObjectTable,
    level: u32,
    pack: &mut SegmentWriter<'_>,
    payloads: Vec<Prepared<'_>>,
) -> Result<u64, ConvertError> {
    let mut copied = 0;
    for (at, size, payload) in payloads {
        let id = table.sha256(at).expect("blobs are named during the scan");
        let sha1 = table.sha1(at);
        match payload {
            Payload::Copied(zlib) => {
                copied += 1;
                pack.add_compressed(sha1, id, ObjectKind::Blob, size, zlib)?
            }
            Payload::Delta { base, zlib } => {
                let base = table
                    .map_sha1(&base)
                    .expect("a delta base in the source is a blob, named during the scan");
                if pack.add_delta_compressed(sha1, id, ObjectKind::Blob, &base, size, zlib)? {
                    copied += 1;
                } else {
                    // The base went into an earlier segment: store it whole.
                    let mut body = Vec::new();
                    read_cache::read(inventory, table, at, &mut body)?;
                    let zlib = deflate(&body, level);
                    pack.add_compressed(sha1, id, ObjectKind::Blob, body.len() as u64, &zlib)?
                }
            }
            Payload::Deflated(zlib) => {
                pack.add_compressed(sha1, id, ObjectKind::Blob, size, &zlib)?
            }
        };
    }
    Ok(copied)
}

fn payload<'a>(
    inventory: &'a Inventory,
    table: &ObjectTable,
    layouts: &[PackLayout],
    at: u32,
    level: u32,
) -> Result<Prepared<'a>, ConvertError> {
    if let Location::Packed {
        pack: pack_no,
        offset,
    } = table.location(at)
    {
        let pack = &inventory.packs[pack_no as usize];
        let layout = &layouts[pack_no as usize];
        let entry = pack.data.entry_at(offset)?;
        let base = layout.delta_base(pack, &entry.kind);
        let copyable = matches!(entry.kind, EntryKind::Base(ObjectKind::Blob)) || base.is_some();
        if copyable {
            let whole = pack.data.raw(offset..layout.entry_end(offset))?;
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
            let zlib = &whole[(entry.data_offset - offset) as usize..];
            let payload = match base {
                Some(base) => Payload::Delta { base, zlib },
                None => Payload::Copied(zlib),
            };
            return Ok((at, entry.size, payload));
        }
    }
    let mut body = Vec::new();
    let kind = read_cache::read(inventory, table, at, &mut body)?;
    debug_assert_eq!(kind, ObjectKind::Blob);
    Ok((
        at,
        body.len() as u64,
        Payload::Deflated(deflate(&body, level)),
    ))
}
