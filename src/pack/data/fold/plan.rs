//! The layout of a folded pack, before a byte is copied: every entry of
//! the input packs listed with its base resolved (a REF_DELTA's base may
//! be in another input: the inputs may be thin), then placed in the order
//! the caller chooses, each delta's base before it, at the offset it will
//! have. An entry's header in the new pack depends only on its offset and
//! its base's (every delta becomes an OFS_DELTA), so the sizes alone lay
//! the pack out, and the copy (`copy.rs`) can run on every core.

use rayon::prelude::*;

use crate::hash::ObjectId;
use crate::pack::data::entry::{EntryKind, OBJ_OFS_DELTA};
use crate::pack::data::file::PACK_HEADER_LEN;
use crate::pack::data::resolve::{MAX_CHAIN_DEPTH, Pack};
use crate::pack::data::write::encode::{encode_entry_header, encode_ofs_distance};
use crate::pack::error::{PackError, PackWriteError};

pub(super) const NO_BASE: u32 = u32::MAX;

/// One entry of an input pack.
pub(super) struct Item {
    /// Input pack number and the entry's position in that pack's idx.
    pub pack: u32,
    pub position: u32,
    pub offset: u64,
    /// Where its zlib stream starts and where the entry ends.
    pub data: u64,
    pub end: u64,
    /// Inflated size of the stream: the object's, or the delta's.
    pub size: u64,
    /// git's type code when whole (1-4); 0 for a delta.
    pub whole: u8,
    /// The item holding its delta base.
    pub base: u32,
}

impl Item {
    /// Its object's name, from its input pack's idx.
    pub(super) fn name(&self, packs: &[Pack]) -> ObjectId {
        packs[self.pack as usize].idx.oid_at(self.position)
    }

    /// Its header in the folded pack, at `offset`, its delta's base at
    /// `base` (an earlier offset of that pack).
    pub(super) fn output_header(&self, offset: u64, base: Option<u64>, out: &mut Vec<u8>) {
        out.clear();
        match base {
            None => encode_entry_header(self.whole, self.size, out),
            Some(base) => {
                encode_entry_header(OBJ_OFS_DELTA, self.size, out);
                encode_ofs_distance(offset - base, out);
            }
        }
    }
}

/// Where the caller wants an entry, from its input pack, offset and name:
/// entries are written by ascending key, ties by name, each delta's base
/// moved before it when the key puts it later.
pub type OrderKey<'a> = dyn Fn(usize, u64, &ObjectId) -> u64 + Sync + 'a;

/// The items in the order the caller's `key` asks for, ties by name.
pub(super) fn order(
    items: &[Item],
    packs: &[Pack],
    key: &OrderKey<'_>,
) -> Result<Vec<u32>, PackWriteError> {
    let n = u32::try_from(items.len())
        .map_err(|_| PackWriteError::TooManyEntries { count: items.len() })?;
    let keys: Vec<u64> = items
        .par_iter()
        .map(|i| key(i.pack as usize, i.offset, &i.name(packs)))
        .collect();
    let mut order: Vec<u32> = (0..n).collect();
    order.par_sort_unstable_by(|&a, &b| {
        let (ia, ib) = (&items[a as usize], &items[b as usize]);
        keys[a as usize]
            .cmp(&keys[b as usize])
            .then_with(|| ia.name(packs).cmp(&ib.name(packs)))
    });
    Ok(order)
}

/// Where every entry goes in the folded pack: the order it is written in
/// (each delta's base first, as the caller's order puts it, or just before
/// the delta) and its offset there.
pub(super) struct Placement {
    /// Items in the order they are written.
    pub sequence: Vec<u32>,
    /// Each item's offset in the new pack.
    pub offset: Vec<u64>,
    /// Where the trailer starts.
    pub end: u64,
}

/// Lays out the folded pack from the entries' sizes alone (an entry's
/// header depends only on its offset and its base's), before any byte is
/// copied: the copy can then run in parallel.
pub(super) fn place(
    items: &[Item],
    order: &[u32],
    packs: &[Pack],
) -> Result<Placement, PackWriteError> {
    const UNPLACED: u64 = u64::MAX;
    let mut offset = vec![UNPLACED; items.len()];
    let mut sequence = Vec::with_capacity(items.len());
    let mut cursor = PACK_HEADER_LEN;
    let mut header = Vec::with_capacity(32);
    let mut chain = Vec::new();
    for &first in order {
        // The entry, after the bases of its chain not placed yet.
        let mut at = first;
        while offset[at as usize] == UNPLACED {
            chain.push(at);
            match items[at as usize].base {
                NO_BASE => break,
                base if chain.len() > MAX_CHAIN_DEPTH => {
                    return Err(PackWriteError::DeltaCycle {
                        id: items[base as usize].name(packs),
                    });
                }
                base => at = base,
            }
        }
        while let Some(at) = chain.pop() {
            let item = &items[at as usize];
            let base = (item.base != NO_BASE).then(|| offset[item.base as usize]);
            item.output_header(cursor, base, &mut header);
            offset[at as usize] = cursor;
            sequence.push(at);
            cursor += header.len() as u64 + (item.end - item.data);
        }
    }
    Ok(Placement {
        sequence,
        offset,
        end: cursor,
    })
}

/// Every entry of every input, in input order, with its base resolved.
pub(super) fn list_entries(packs: &[Pack]) -> Result<Vec<Item>, PackWriteError> {
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
