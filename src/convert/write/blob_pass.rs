//! The blob pass: append every blob to the output segments.
//!
//! A blob's bytes are the same in both hash worlds, so a blob stored whole
//! in a source pack is copied as its zlib stream, without inflating or
//! deflating; its CRC32 from the source idx is checked first so that a
//! damaged stream is never propagated. A blob stored as a delta against
//! another blob is copied the same way, as its compressed delta, wherever
//! its base is written (a REF_DELTA: segments are thin until the finish
//! step folds them), unless `--depth` cuts the chain there or the base is
//! in a finished earlier conversion's pack; then, and for loose blobs, it
//! is inflated and deflated again. Blobs an earlier run converted (they
//! have map rows) are skipped.
//!
//! With a search (the default), every blob goes through the window search
//! (`pack/delta_search/window.rs`) in git's delta-search order, in pieces
//! (`piece_search.rs`); without one (`--window 0`), blobs go in source order.
//!
//! A resumed run plans the blobs an interrupted run wrote with the rest and
//! restarts at the chunk of the first blob it did not write
//! (`pipeline/chunking.rs`), its search starting from the blobs before that chunk
//! and the chains they were written with (`search_tail.rs`), so that its
//! windows, and the pack, are those of an uninterrupted run. The choices
//! the search made for each chunk are recorded (`search_record.rs`): a
//! resumed run makes the chunks whose search an interrupted run finished
//! from them, without searching.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::convert::error::ConvertError;
use crate::convert::segments::sequence::SegmentWriter;
use crate::convert::source_objects::read_cache;
use crate::convert::source_objects::table::{Location, ObjectTable};
use crate::convert::write::delta_policy::{DeltaOptions, git_order, pieces, source_position};
use crate::convert::write::pass::Pass;
use crate::convert::write::piece_search::{ChunkSearch, Searchable, Searched, SharedBody};
use crate::convert::write::search_record::{self, Choice, SearchRecord};
use crate::convert::write::search_tail::Tail;
use crate::object::ObjectKind;
use crate::pack::{EntryKind, PackError};
use crate::pipeline::chunking::{chunks_within, restart_at};
use crate::repo::dest_layout;
use crate::zlib::deflate;

/// A parallel chunk ends at this many blobs, or once its blobs' bodies
/// add up to this many bytes, whichever comes first. The bytes bound what
/// its re-deflated blobs hold in memory until they are appended (at most
/// about their bodies' size), so memory follows the budget, not the size
/// of the repository's files; and the time the chunk takes, which the
/// search spends diffing bodies, so that a resumed run redoes a second or
/// two of work, not a minute: on tokio, 4096 versions of one changelog
/// are 2.9 GB, which took 36 s as one chunk (its source stores them in
/// 19 MB of deltas, which is what the budget counted before).
const CHUNK: usize = 4096;
const CHUNK_BYTES: u64 = 64 << 20;

enum Payload<'a> {
    /// The source entry's zlib stream, copied as is.
    Copied(&'a [u8]),
    /// A compressed delta against the blob at table position `base`: the
    /// source entry's, or one the window search made.
    Delta {
        base: u32,
        zlib: Cow<'a, [u8]>,
    },
    Deflated(Vec<u8>),
}

/// The blobs the pass plans (without a map row, or written by an
/// interrupted run), in the order it writes them. Without a search, source
/// order: sequential reads of each pack, and bases before deltas; with
/// one, the search's order.
pub fn blob_order(table: &ObjectTable, deltas: DeltaOptions) -> Vec<u32> {
    let mut blobs: Vec<u32> = table
        .indices()
        .filter(|&i| table.kind(i) == Some(ObjectKind::Blob) && table.is_planned(i))
        .collect();
    match deltas.searching() {
        true => blobs.sort_by_key(|&i| git_order(table, i)),
        false => blobs.sort_by_key(|&i| source_position(table, i)),
    }
    blobs
}

/// Writes `blobs` ([`blob_order`]) but those an interrupted run wrote into
/// `pack` (the blobs' sequence of segments); returns how many went in as
/// copies of their source bytes. Counts progress in blobs appended (the
/// caller's phase).
pub fn blob_pass(
    pass: &Pass<'_>,
    blobs: &[u32],
    pack: &mut SegmentWriter<'_, '_>,
) -> Result<u64, ConvertError> {
    let (inventory, table) = (pass.inventory, pass.table);
    let (deltas, progress) = (pass.deltas, pass.progress);
    let mut copied = 0u64;
    let body_size = |at: u32| u64::from(table.size(at));
    let chunks = chunks_within(blobs, pass.chunk(CHUNK), CHUNK_BYTES, body_size);
    let key = |i: u32| table.name_hash(i);
    let read = |at: u32| -> Result<SharedBody, ConvertError> {
        let mut body = Vec::new();
        read_cache::read(inventory, table, at, &mut body)?;
        Ok(SharedBody::from(body))
    };
    let start = restart_at(chunks.iter().copied(), |at| table.is_carried(at));
    // The search's choices, for a run resumed later, and those a run
    // interrupted before left for the chunks from `start` on; not kept
    // for the candidate log, which wants every window's distances.
    let record = match deltas.searching() && pass.log.is_none() {
        true => {
            let options = format!("{deltas:?} {:?}", deltas.window_options());
            let plan = search_record::fingerprint(chunks.iter().copied(), &options);
            let path = dest_layout::search_record(pass.dest);
            Some(SearchRecord::open(&path, plan, start as u32)?)
        }
        false => None,
    };
    // Blobs an interrupted run wrote are prepared only as far as the
    // window of those after them needs: their payloads are not made.
    let new = |&at: &u32| !table.is_carried(at);
    // Prepares chunk `k`, its search starting from `tail`, the blobs
    // before it; returns the next chunk's tail too.
    let prepare = |k: usize, tail: BlobTail| -> Result<Ready<'_>, ConvertError> {
        let chunk = chunks[k];
        // With a search, every blob of the chunk, cut into pieces.
        let split = if deltas.searching() { 0 } else { chunk.len() };
        let (plain, searched) = chunk.split_at(split);
        let mut prepared: Vec<Prepared<'_>> = plain
            .par_iter()
            .filter(|at| new(at))
            .map(|&at| payload(pass, at, true))
            .collect::<Result<_, _>>()?;
        let objects: Vec<Searchable> = searched
            .iter()
            .map(|&at| Searchable {
                at,
                kind: ObjectKind::Blob,
                fixed: None,
                source_base: pass.logged_source_base(at),
                size: u64::from(table.size(at)),
            })
            .collect();
        let search = ChunkSearch {
            objects: &objects,
            pieces: pieces(searched.len(), |k| {
                Some(key(searched[k])).filter(|&h| h != 0)
            }),
            opts: deltas.window_options(),
            outside: &[],
        };
        let body = |j: usize| read(searched[j]);
        let recorded = record.as_ref().and_then(|r| r.choices(k as u32));
        let replayed = match recorded {
            Some(choices) => search.replay(choices, |j| new(&searched[j]), body, read)?,
            None => None,
        };
        let (found, tail) = match (replayed, recorded) {
            (Some(found), Some(choices)) => (found, search.tail_after(tail, choices)),
            _ => {
                let (found, tail) = search.run(tail, body, read)?;
                if let Some(record) = &record {
                    let choices: Vec<Choice> = found.iter().map(Searched::choice).collect();
                    record.record(k as u32, &choices)?;
                }
                (found, tail)
            }
        };
        let found: Vec<Prepared<'_>> = searched
            .par_iter()
            .zip(found)
            .filter(|(at, _)| new(at))
            .map(|(&at, searched)| searched_payload(pass, at, searched))
            .collect::<Result<_, _>>()?;
        prepared.extend(found);
        Ok((prepared, tail))
    };
    // A pipeline of two: chunk k is appended (sequential: the pack stream
    // and its checksum) while chunk k+1's CRC checks and re-deflates run on
    // the other threads.
    let tail = match deltas.searching() {
        true => {
            let before = chunks[..start].iter().flat_map(|c| c.iter());
            let before = before.map(|&at| (at, ObjectKind::Blob));
            // A blob's length as the search counts it (`Searchable::size`).
            let len = |at: u32, _: &SharedBody| u64::from(table.size(at));
            pass.written_tail(before, read, len)?
        }
        false => Tail::empty(),
    };
    let mut ready = (start < chunks.len())
        .then(|| prepare(start, tail))
        .transpose()?;
    for k in start..chunks.len() {
        let (payloads, tail) = ready.take().expect("prepared before its turn");
        let appended_now = payloads.len() as u64;
        let (appended, next) = rayon::join(
            || append(pack, payloads),
            || {
                (k + 1 < chunks.len())
                    .then(|| prepare(k + 1, tail))
                    .transpose()
            },
        );
        copied += appended?;
        ready = next?;
        progress.advance(appended_now);
        pack.checkpoint()?;
    }
    Ok(copied)
}

/// A blob ready to append: table index, size, what goes into the pack.
type Prepared<'a> = (u32, u64, Payload<'a>);

/// The blobs before a chunk, which its search starts from.
type BlobTail = Tail<SharedBody>;

/// A prepared chunk and the next chunk's tail.
type Ready<'a> = (Vec<Prepared<'a>>, BlobTail);

/// Appends one chunk's blobs in order; returns how many went in as copies
/// of their source bytes.
fn append(
    pack: &mut SegmentWriter<'_, '_>,
    payloads: Vec<Prepared<'_>>,
) -> Result<u64, ConvertError> {
    let mut copied = 0;
    for (at, size, payload) in payloads {
        let window_made = matches!(
            &payload,
            Payload::Delta {
                zlib: Cow::Owned(_),
                ..
            }
        );
        match payload {
            Payload::Copied(zlib) => {
                copied += 1;
                pack.add_compressed(at, ObjectKind::Blob, size, zlib)?
            }
            Payload::Delta { base, zlib } => {
                pack.add_delta_compressed(at, base, size, &zlib)?;
                copied += u64::from(!window_made);
            }
            Payload::Deflated(zlib) => pack.add_compressed(at, ObjectKind::Blob, size, &zlib)?,
        };
    }
    Ok(copied)
}

/// How a blob the window search looked at is stored: as the delta it
/// found (logged to the candidate log, if any), else as without a search.
fn searched_payload<'a>(
    pass: &Pass<'a>,
    at: u32,
    searched: Searched,
) -> Result<Prepared<'a>, ConvertError> {
    let Some(found) = &searched.found else {
        return payload(pass, at, false);
    };
    let zlib = deflate(&found.delta, pass.level);
    if let Some(log) = pass.log {
        log.record(pass.table, at, &searched, zlib.len(), pass.pairs.base(at))?;
    }
    let payload = Payload::Delta {
        base: found.base,
        zlib: Cow::Owned(zlib),
    };
    Ok((at, found.delta.len() as u64, payload))
}

/// How blob `at` is stored without a window search: its source bytes
/// copied when the source stores it whole (or, when it keeps its source
/// pairing and `pairing` allows it, as a delta), else deflated anew.
fn payload<'a>(pass: &Pass<'a>, at: u32, pairing: bool) -> Result<Prepared<'a>, ConvertError> {
    let (inventory, table, layouts, level) = (pass.inventory, pass.table, pass.layouts, pass.level);
    if let Location::Packed {
        pack: pack_no,
        offset,
    } = table.location(at)
    {
        let pack = &inventory.packs[pack_no as usize];
        let layout = &layouts[pack_no as usize];
        let entry = pack.data.entry_at(offset)?;
        let base = pass.source_base(at).filter(|_| pairing);
        let copyable = matches!(entry.kind, EntryKind::Base(ObjectKind::Blob)) || base.is_some();
        // Table locations are idx entries, so `entry` finds every one.
        if copyable && let Some((position, end)) = layout.entry(offset) {
            debug_assert_eq!(pack.idx.oid_at(position), table.source_id(at));
            let whole = pack.data.raw(offset..end)?;
            if let Some(expected) = pack.idx.crc32_at(position)
                && crc32fast::hash(whole) != expected
            {
                return Err(PackError::CrcMismatch {
                    id: table.source_id(at),
                    file: inventory.pack_paths[pack_no as usize].display().to_string(),
                    offset,
                }
                .into());
            }
            let zlib = &whole[(entry.data_offset - offset) as usize..];
            let payload = match base {
                Some(base) => Payload::Delta {
                    base,
                    zlib: Cow::Borrowed(zlib),
                },
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
