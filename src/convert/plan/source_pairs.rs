//! Which object each object is a delta of in SOURCE's packs, and how long
//! its chain is there: the pairing the write passes reuse.
//!
//! An output chain follows the source chain, so its length is known before
//! anything is written: an object at depth `d` of a source chain is stored
//! as a delta unless `d` is a multiple of `--depth + 1`, where the chain
//! is cut and the object stored whole. Such a rule needs no record of what
//! was written, so a run's deltas are the same whatever its segments, its
//! threads or its interruptions. A chain the passes cut anyway (a delta
//! that would not pay, a base from a finished earlier conversion) is only
//! shorter.

use rayon::prelude::*;

use crate::convert::error::ConvertError;
use crate::convert::source_objects::inventory::Inventory;
use crate::convert::source_objects::table::{Location, ObjectTable};
use crate::object::ObjectKind;
use crate::pack::{EntryKind, PackLayout};

const NONE: u32 = u32::MAX;

/// The source pairing of every object of the table.
pub struct SourcePairs {
    /// The table index of the object's delta base in its source pack.
    base: Vec<u32>,
    /// Its depth in that pack's chain (0: stored whole), saturated.
    depth: Vec<u16>,
}

impl SourcePairs {
    /// Reads every entry header of every source pack (no inflating).
    pub fn compute(
        inventory: &Inventory,
        layouts: &[PackLayout<'_>],
        table: &ObjectTable,
    ) -> Result<Self, ConvertError> {
        let per_pack: Vec<Vec<(u32, u32)>> = inventory
            .packs
            .par_iter()
            .zip(layouts)
            .enumerate()
            .map(|(pack_no, (pack, layout))| {
                let by_offset = pack.entries_by_offset()?;
                let mut pairs = Vec::new();
                for &(offset, position) in by_offset {
                    let entry = pack.data.entry_at(offset)?;
                    if matches!(entry.kind, EntryKind::Base(_)) {
                        continue;
                    }
                    let Some(at) = table.find(&pack.idx.oid_at(position)) else {
                        continue;
                    };
                    // An object stored twice is read from its first place.
                    let here = Location::Packed {
                        pack: pack_no as u32,
                        offset,
                    };
                    if table.location(at) != here {
                        continue;
                    }
                    // A base the selection left out is not in DEST: its
                    // deltas are stored whole, or find another base.
                    if let Some(base) = layout
                        .delta_base(pack, &entry.kind)
                        .and_then(|id| table.find(&id))
                        .filter(|&base| !table.is_left_out(base))
                    {
                        pairs.push((at, base));
                    }
                }
                Ok::<_, ConvertError>(pairs)
            })
            .collect::<Result<_, _>>()?;
        let mut base = vec![NONE; table.len()];
        for (at, b) in per_pack.into_iter().flatten() {
            base[at as usize] = b;
        }
        let depth = chain_depths(&base);
        Ok(SourcePairs { base, depth })
    }

    /// The base SOURCE stores object `at` as a delta of, if it is one.
    pub fn base(&self, at: u32) -> Option<u32> {
        Some(self.base[at as usize]).filter(|&b| b != NONE)
    }

    /// How deep object `at` sits in its source chain (0: stored whole).
    pub fn depth(&self, at: u32) -> u32 {
        u32::from(self.depth[at as usize])
    }

    /// The output chain length of `at` when every delta of its source chain
    /// is kept, cut every `max_depth + 1` objects: an upper bound of its
    /// real length.
    pub fn output_depth(&self, at: u32, max_depth: u32) -> u32 {
        self.depth(at) % (max_depth + 1)
    }

    /// The (dependent, base) pairs between trees, commits and tags that
    /// are both still to be written: the map pass names a base before the
    /// objects stored as its deltas.
    pub fn delta_edges(&self, table: &ObjectTable) -> Vec<(u32, u32)> {
        table
            .indices()
            .filter_map(|at| Some((at, self.base(at)?)))
            .filter(|&(at, base)| {
                let kind = table.kind(at);
                kind.is_some()
                    && kind != Some(ObjectKind::Blob)
                    && table.kind(base) == kind
                    && table.is_planned(at)
                    && table.is_planned(base)
            })
            .collect()
    }
}

/// The depth of every object in the forest `base` describes. A cycle,
/// which no pack git reads can hold, is cut where the walk closes it.
fn chain_depths(base: &[u32]) -> Vec<u16> {
    const UNKNOWN: u16 = u16::MAX;
    let mut depth = vec![UNKNOWN; base.len()];
    let mut on_path = vec![false; base.len()];
    let mut path = Vec::new();
    for start in 0..base.len() {
        // Up the chain to a known depth, a root, or the path itself.
        let mut at = start;
        let mut above = None;
        loop {
            if depth[at] != UNKNOWN {
                above = Some(depth[at]);
                break;
            }
            if on_path[at] {
                break;
            }
            on_path[at] = true;
            path.push(at);
            match base[at] {
                NONE => break,
                b => at = b as usize,
            }
        }
        // Then down again: the path's top is a root, or sits on `above`.
        let mut d = above.map_or(0, |a| a.saturating_add(1));
        while let Some(p) = path.pop() {
            depth[p] = d.min(UNKNOWN - 1);
            on_path[p] = false;
            d = d.saturating_add(1);
        }
    }
    depth
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_follow_the_chains() {
        // 0 <- 1 <- 2, 3 alone, 4 -> 2 (a branch of the chain)
        let base = vec![NONE, 0, 1, NONE, 2];
        assert_eq!(chain_depths(&base), vec![0, 1, 2, 0, 3]);
        // Found from the end of the chain first.
        let base = vec![1, 2, NONE];
        assert_eq!(chain_depths(&base), vec![2, 1, 0]);
    }

    #[test]
    fn a_cycle_ends_where_it_closes() {
        let depths = chain_depths(&[1, 0]);
        assert!(depths.iter().all(|&d| d < 3));
    }
}
