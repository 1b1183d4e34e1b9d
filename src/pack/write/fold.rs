//! Folding packs into one: every entry of the input packs copied into a
//! new pack as it is stored (its zlib stream untouched), in an order the
//! caller chooses, with each delta's base written before it, as
//! `pack-objects` writes reused deltas (`write_one` in
//! `builtin/pack-objects.c`).
//!
//! The inputs may be thin: a REF_DELTA may name a base that another input
//! holds. The output is not: every delta becomes an OFS_DELTA against its
//! base's new place. Nothing is inflated, so the cost is reading the inputs
//! and writing the output once (plus its SHA-256, its `.idx` and `.rev`,
//! and the CRC32 of each input entry, checked against its idx and reused
//! for the output's).
//!
//! Memory: about 85 bytes an entry (its record, sort key, place in the
//! order and new entry), whatever the objects' sizes.

use std::path::Path;

use rayon::prelude::*;

use super::{PackOutcome, PackWriteError, PackWriter, WrittenEntry, ZlibStream};
use crate::hash::{HashKind, ObjectId};
use crate::pack::{EntryKind, MAX_CHAIN_DEPTH, Pack, PackError};
use crate::progress::Progress;

const NO_BASE: u32 = u32::MAX;

/// One entry of an input pack.
struct Item {
    /// Input pack number and the entry's position in that pack's idx.
    pack: u32,
    position: u32,
    offset: u64,
    /// Where its zlib stream starts and where the entry ends.
    data: u64,
    end: u64,
    /// Inflated size of the stream: the object's, or the delta's.
    size: u64,
    /// git's type code when whole (1-4); 0 for a delta.
    whole: u8,
    /// The item holding its delta base.
    base: u32,
}

/// Where the caller wants an entry, from its input pack, offset and name:
/// entries are written by ascending key, ties by name, each delta's base
/// moved before it when the key puts it later.
pub type OrderKey<'a> = dyn Fn(usize, u64, &ObjectId) -> u64 + Sync + 'a;

/// Writes every entry of `packs` (SHA-256 or SHA-1, all of one kind) into
/// one new pack in `dir`, renamed into place with its `.idx` and `.rev`.
/// Objects stored in more than one input are refused (an input set comes
/// from one conversion, which writes each object once).
pub fn fold_packs(
    packs: &[Pack],
    dir: &Path,
    hash: HashKind,
    key: &OrderKey<'_>,
    progress: &dyn Progress,
) -> Result<PackOutcome, PackWriteError> {
    let items = list_entries(packs)?;
    let n = u32::try_from(items.len())
        .map_err(|_| PackWriteError::TooManyEntries { count: items.len() })?;
    let name = |i: &Item| packs[i.pack as usize].idx.oid_at(i.position);
    let keys: Vec<u64> = items
        .par_iter()
        .map(|i| key(i.pack as usize, i.offset, &name(i)))
        .collect();
    let mut order: Vec<u32> = (0..n).collect();
    order.par_sort_unstable_by(|&a, &b| {
        let (ia, ib) = (&items[a as usize], &items[b as usize]);
        keys[a as usize]
            .cmp(&keys[b as usize])
            .then_with(|| name(ia).cmp(&name(ib)))
    });
    drop(keys);

    let total: u64 = items.iter().map(|i| i.end - i.offset).sum();
    progress.start_bytes("writing one pack", Some(total));
    let mut out = PackWriter::create(dir, hash, n)?;
    let mut placed: Vec<Option<WrittenEntry>> = vec![None; items.len()];
    let mut chain = Vec::new();
    for &first in &order {
        // The entry, after the bases of its chain not written yet.
        let mut at = first;
        while placed[at as usize].is_none() {
            chain.push(at);
            match items[at as usize].base {
                NO_BASE => break,
                base if chain.len() > MAX_CHAIN_DEPTH => {
                    return Err(PackWriteError::DeltaCycle {
                        id: name(&items[base as usize]),
                    });
                }
                base => at = base,
            }
        }
        while let Some(at) = chain.pop() {
            let item = &items[at as usize];
            let pack = &packs[item.pack as usize];
            let id = name(item);
            // Each entry is checked against its input's idx as it is
            // copied: a damaged input is refused by name and offset,
            // without a separate pass over every input's bytes.
            let entry = pack.data.raw(item.offset..item.end)?;
            let (header, zlib) = entry.split_at((item.data - item.offset) as usize);
            // One pass over the stream serves both sums: the input entry's,
            // checked against its idx, and the output entry's, whose header
            // may differ.
            let zlib = ZlibStream {
                bytes: zlib,
                crc32: Some(crc32fast::hash(zlib)),
            };
            if let Some(recorded) = pack.idx.crc32_at(item.position) {
                let mut sum = crc32fast::Hasher::new();
                sum.update(header);
                sum.combine(&crc32fast::Hasher::new_with_initial_len(
                    zlib.crc32.unwrap_or_default(),
                    zlib.bytes.len() as u64,
                ));
                if sum.finalize() != recorded {
                    return Err(PackWriteError::DamagedEntry {
                        id,
                        pack: pack.data.path().to_owned(),
                        offset: item.offset,
                    });
                }
            }
            placed[at as usize] = Some(match item.base {
                NO_BASE => {
                    let kind = crate::object::ObjectKind::from_pack_code(item.whole)
                        .expect("whole entries carry an object type");
                    out.add_compressed(id, kind, item.size, zlib)?
                }
                base => {
                    let base = placed[base as usize].expect("bases are placed first");
                    out.add_ofs_delta_compressed(id, base, item.size, zlib)?
                }
            });
            progress.advance(item.end - item.offset);
        }
    }
    let outcome = out.finish();
    progress.finish();
    outcome
}

/// Every entry of every input, in input order, with its base resolved.
fn list_entries(packs: &[Pack]) -> Result<Vec<Item>, PackWriteError> {
    let orders: Vec<&[(u64, u32)]> = packs
        .iter()
        .map(Pack::entries_by_offset)
        .collect::<Result<_, _>>()?;
    let mut first = Vec::with_capacity(packs.len() + 1);
    let mut count = 0usize;
    for order in &orders {
        first.push(count);
        count += order.len();
    }
    // The item at `offset` of input `p`.
    let item_at = |p: usize, offset: u64| {
        orders[p]
            .binary_search_by_key(&offset, |&(o, _)| o)
            .ok()
            .map(|k| (first[p] + k) as u32)
    };
    let per_pack: Vec<Vec<Item>> = packs
        .par_iter()
        .enumerate()
        .map(|(p, pack)| {
            let order = orders[p];
            let data_end = pack.data.data_end() as u64;
            let mut items = Vec::with_capacity(order.len());
            for (k, &(offset, position)) in order.iter().enumerate() {
                let entry = pack.data.entry_at(offset)?;
                let end = order.get(k + 1).map_or(data_end, |&(o, _)| o);
                let (whole, base) = match entry.kind {
                    EntryKind::Base(kind) => (kind.pack_code(), NO_BASE),
                    EntryKind::OfsDelta { base_offset } => {
                        let base = item_at(p, base_offset).ok_or(PackError::BaseOutOfRange {
                            path: pack.data.path().to_owned(),
                            offset,
                            base_offset,
                        })?;
                        (0, base)
                    }
                    EntryKind::RefDelta { base_id } => {
                        // Its own pack first: that is where a non-thin
                        // input keeps it.
                        let base = std::iter::once(p)
                            .chain((0..packs.len()).filter(|&q| q != p))
                            .find_map(|q| packs[q].find(&base_id).and_then(|o| item_at(q, o)))
                            .ok_or_else(|| PackWriteError::MissingBase {
                                id: pack.idx.oid_at(position),
                                base: base_id,
                                pack: pack.data.path().to_owned(),
                            })?;
                        (0, base)
                    }
                };
                items.push(Item {
                    pack: p as u32,
                    position,
                    offset,
                    data: entry.data_offset,
                    end,
                    size: entry.size,
                    whole,
                    base,
                });
            }
            Ok::<_, PackWriteError>(items)
        })
        .collect::<Result<_, _>>()?;
    let mut items = Vec::with_capacity(count);
    for part in per_pack {
        items.extend(part);
    }
    Ok(items)
}
