//! Writing a folded pack whose layout is known in advance (`plan.rs`
//! places every entry before a byte is copied): the entries are copied in
//! parallel, each range of the new pack by one thread at its own offset,
//! while one more thread hashes the same bytes in pack order for the
//! trailer, reading them from the inputs rather than from the new file.
//!
//! The copy checks each entry against the CRC32 its input's idx records,
//! so a damaged segment is refused by name and offset; that sum is the new
//! idx's CRC32 too when the entry's header is unchanged (a whole object).
//! Nothing is inflated.
//!
//! One thread copying and hashing ~1 GB of blobs was the longest part of a
//! blob-heavy conversion's finish step; the hash alone is ~0.6 s a GB, and
//! now runs beside the copies instead of after each block.

use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::path::Path;

use rayon::prelude::*;

use super::plan::{Item, NO_BASE, Placement};
use crate::durable::{self, TempFiles};
use crate::hash::{HashKind, ObjectId};
use crate::pack::data::resolve::Pack;
use crate::pack::data::write::pack_writer::pack_header;
use crate::pack::data::write::publish::{AfterSync, PackOutcome, WrittenPack, publish};
use crate::pack::data::write::stream::{drop_range, start_writeback};
use crate::pack::error::PackWriteError;
use crate::pack::hashfile::FileHasher;
use crate::pack::index::write::{IndexEntry, sort_and_check};
use crate::progress::Progress;

/// Bytes of the new pack one task copies: enough that a task's overhead
/// (a buffer, a few system calls) is nothing beside its copy, few enough
/// that every core gets many.
const RANGE_BYTES: u64 = 8 << 20;
/// Bytes gathered before each positioned write.
const WRITE_BYTES: usize = 1 << 20;

/// The inputs of a fold and where each entry goes.
pub(super) struct FoldInputs<'a> {
    pub packs: &'a [Pack],
    pub items: &'a [Item],
    pub placed: &'a Placement,
}

impl FoldInputs<'_> {
    /// The entry's header and zlib stream in its input pack.
    fn input(&self, item: &Item) -> Result<(&[u8], &[u8]), PackWriteError> {
        let entry = self.packs[item.pack as usize]
            .data
            .raw(item.offset..item.end)?;
        Ok(entry.split_at((item.data - item.offset) as usize))
    }

    /// The entry's header in the new pack.
    fn output_header(&self, at: u32, out: &mut Vec<u8>) {
        let item = &self.items[at as usize];
        let base = (item.base != NO_BASE).then(|| self.placed.offset[item.base as usize]);
        item.output_header(self.placed.offset[at as usize], base, out);
    }
}

/// Writes the placed entries of `inputs` into a new pack in `dir`, renamed
/// into place with its `.idx` and `.rev`; counts the bytes copied in
/// `progress`'s current phase.
pub(super) fn write_placed(
    inputs: &FoldInputs<'_>,
    dir: &Path,
    hash: HashKind,
    progress: &dyn Progress,
) -> Result<PackOutcome, PackWriteError> {
    let count = inputs.placed.sequence.len() as u32;
    let mut temps = TempFiles::default();
    let (temp_pack, file) = durable::create_temp(dir, "tmp_pack_")?;
    temps.add(temp_pack.clone());
    let io = PackWriteError::io(&temp_pack);
    let header = pack_header(count);
    file.write_all_at(&header, 0).map_err(io)?;

    let ranges = ranges(inputs);
    let (checksum, copied) = rayon::join(
        || checksum(inputs, hash, &header),
        || {
            ranges
                .par_iter()
                .map(|range| copy_range(inputs, &file, &temp_pack, range, progress))
                .collect::<Result<Vec<_>, _>>()
        },
    );
    let mut entries: Vec<IndexEntry> = copied?.into_iter().flatten().collect();
    let checksum = checksum?;
    // Checks before the trailer, so a rejected pack costs no fsync.
    sort_and_check(hash, &mut entries, &checksum)?;
    let end = inputs.placed.end;
    let io = |e| PackWriteError::io(&temp_pack)(e);
    file.write_all_at(checksum.as_bytes(), end).map_err(io)?;
    let written = WrittenPack {
        dir,
        hash,
        file,
        temp_pack: &temp_pack,
        checksum,
        pack_size: end + hash.raw_len() as u64,
        after_sync: AfterSync::DropCached,
    };
    publish(written, temps, &entries)
}

/// The pack's sequence cut into ranges of about [`RANGE_BYTES`].
fn ranges(inputs: &FoldInputs<'_>) -> Vec<std::ops::Range<usize>> {
    let (sequence, offset) = (&inputs.placed.sequence, &inputs.placed.offset);
    let mut out = Vec::new();
    let mut start = 0;
    for (k, &at) in sequence.iter().enumerate() {
        if offset[at as usize] - offset[sequence[start] as usize] >= RANGE_BYTES {
            out.push(start..k);
            start = k;
        }
    }
    if start < sequence.len() {
        out.push(start..sequence.len());
    }
    out
}

/// The trailer: the hash of the pack header and every entry, in order,
/// read from the inputs.
fn checksum(
    inputs: &FoldInputs<'_>,
    hash: HashKind,
    pack_header: &[u8],
) -> Result<ObjectId, PackWriteError> {
    let mut hasher = FileHasher::new(hash);
    hasher.update(pack_header);
    let mut header = Vec::with_capacity(32);
    for &at in &inputs.placed.sequence {
        let (_, zlib) = inputs.input(&inputs.items[at as usize])?;
        inputs.output_header(at, &mut header);
        hasher.update(&header);
        hasher.update(zlib);
    }
    Ok(hasher.finalize())
}

/// Copies the entries of one range of the sequence to their offsets in
/// `file`, checking each against its input idx's CRC32; returns their idx
/// entries.
fn copy_range(
    inputs: &FoldInputs<'_>,
    file: &File,
    path: &Path,
    range: &std::ops::Range<usize>,
    progress: &dyn Progress,
) -> Result<Vec<IndexEntry>, PackWriteError> {
    let sequence = &inputs.placed.sequence[range.clone()];
    let Some(&first) = sequence.first() else {
        return Ok(Vec::new());
    };
    let start = inputs.placed.offset[first as usize];
    let mut buffer: Vec<u8> = Vec::with_capacity(WRITE_BYTES + (64 << 10));
    // Where the buffer goes, and the range's first byte not yet dropped
    // from the page cache.
    let (mut at_offset, mut dropped) = (start, start);
    let mut entries = Vec::with_capacity(sequence.len());
    let mut header = Vec::with_capacity(32);
    let mut flush = |buffer: &mut Vec<u8>, at_offset: &mut u64| -> Result<(), PackWriteError> {
        file.write_all_at(buffer, *at_offset)
            .map_err(PackWriteError::io(path))?;
        // As the streaming writer does: start the writeback of what was
        // just written, and drop from the cache what was written before,
        // so that the new file's pages are recycled.
        start_writeback(file, *at_offset, buffer.len() as u64);
        drop_range(file, dropped, *at_offset);
        dropped = *at_offset;
        progress.advance(buffer.len() as u64);
        *at_offset += buffer.len() as u64;
        buffer.clear();
        Ok(())
    };
    for &at in sequence {
        let item = &inputs.items[at as usize];
        let (input_header, zlib) = inputs.input(item)?;
        // The input entry is contiguous: one CRC32 pass over it.
        let input_crc = {
            let mut sum = crc32fast::Hasher::new();
            sum.update(input_header);
            sum.update(zlib);
            sum.finalize()
        };
        let pack = &inputs.packs[item.pack as usize];
        if let Some(recorded) = pack.idx.crc32_at(item.position)
            && input_crc != recorded
        {
            return Err(PackWriteError::DamagedEntry {
                id: item.name(inputs.packs),
                pack: pack.data.path().to_owned(),
                offset: item.offset,
            });
        }
        inputs.output_header(at, &mut header);
        // A whole object keeps its header, and so its CRC32. A delta's
        // header changes (its base is named by distance now): its stream
        // is summed again, which costs less than combining two CRC32s
        // (a few dozen 32x32 bit-matrix products an entry).
        let output_crc = if header == input_header {
            input_crc
        } else {
            let mut sum = crc32fast::Hasher::new();
            sum.update(&header);
            sum.update(zlib);
            sum.finalize()
        };
        let offset = inputs.placed.offset[at as usize];
        debug_assert_eq!(offset, at_offset + buffer.len() as u64);
        entries.push(IndexEntry {
            id: item.name(inputs.packs),
            offset,
            crc32: output_crc,
        });
        buffer.extend_from_slice(&header);
        if buffer.len() + zlib.len() > WRITE_BYTES {
            // A large stream goes straight from its input to the file.
            flush(&mut buffer, &mut at_offset)?;
            if zlib.len() > WRITE_BYTES {
                file.write_all_at(zlib, at_offset)
                    .map_err(PackWriteError::io(path))?;
                progress.advance(zlib.len() as u64);
                at_offset += zlib.len() as u64;
                continue;
            }
        }
        buffer.extend_from_slice(zlib);
    }
    if !buffer.is_empty() {
        flush(&mut buffer, &mut at_offset)?;
    }
    Ok(entries)
}
