//! How the output pack's deltas are chosen, shared by the blob
//! and map passes.
//!
//! * Default: the window search chooses every base.
//! * `--window 0` (`reuse`): no search; an object the source pack stores as
//!   a delta is stored as a delta of the same base (blobs: the compressed
//!   delta copied; trees, commits, tags: a fresh delta of the translated
//!   objects), wherever the base is written: the schedule names a tree's or
//!   commit's base first. Loose objects, objects the source stores whole,
//!   and deltas the schedule let go before their base to break a ring with
//!   references (git stores an older commit as a delta of its child) are
//!   stored whole.
//! * Either way no chain is longer than `--depth`: a reused chain follows
//!   the source chain and is cut every `--depth` + 1 objects, the object
//!   there stored whole (`plan/source_pairs.rs`), so the cuts do not depend
//!   on segments or threads; the window search tracks the depth of what it
//!   places. Cutting a chain (rather than re-basing the object on its
//!   base's base, which would hit the same limit one object later) is what
//!   git's `break_delta_chains` does too.
//!
//! The window search (`pack::Window`, pack-objects' `find_deltas`)
//! runs over fixed "pieces" of a pass's order, searched in parallel
//! (`piece_search.rs`): each piece by one thread, in order, its window
//! warm from the objects before it, so the result does not depend on the
//! thread count. The order is git's (`type_size_sort`: name hash, then
//! size, largest first, then SOURCE's storage order, which is git's
//! history order, newest first): every blob, and within each wave every
//! tree, commit and tag. A searched base is always earlier in the pass's
//! order; a reused one may come later (a blob's), and the finish step
//! writes every base before its deltas.

use std::cmp::Reverse;
use std::ops::Range;

use crate::convert::source_objects::table::{Location, ObjectTable};
use crate::pack::{Tries, WindowOptions};

/// Objects per window piece (searched in order by one thread).
pub const PIECE: usize = 512;

/// Bytes of bodies one window may hold (git's `--window-memory`).
const WINDOW_MEMORY: usize = 128 << 20;

/// The delta options of a run.
#[derive(Debug, Clone, Copy)]
pub struct DeltaOptions {
    pub window: usize,
    pub depth: u32,
    /// The source pairing is kept (only when nothing is searched).
    pub reuse: bool,
    pub tries: Tries,
}

impl DeltaOptions {
    /// The tries of the default search: the 8 newest objects of the
    /// window, where most bases of a full search are found (the previous
    /// version of the file, the base the object before chose), and the 16
    /// others that resemble the target most. Measured against trying all
    /// 250 (`--try-every-base`) and git's own deep repack in
    /// docs/performance.md: more resembling tries buy little size for
    /// their time, fewer lose trees and blobs whose best base is far.
    pub const RANKED: Tries = Tries::Ranked {
        newest: 8,
        resembling: 16,
    };

    pub fn window_options(self) -> WindowOptions {
        WindowOptions {
            window: self.window,
            depth: self.depth,
            memory: WINDOW_MEMORY,
            id_len: 32,
            tries: self.tries,
        }
    }

    /// Whether a window search runs at all.
    pub fn searching(self) -> bool {
        self.window > 0 && self.depth > 0
    }
}

/// git's `type_size_sort` key (within one type): name hash, then size,
/// both descending, then [`source_position`]: git breaks ties by the order
/// its history walk met the objects, newest first, which is the order of
/// a pack git wrote.
pub fn git_order(table: &ObjectTable, i: u32) -> (Reverse<u32>, Reverse<u32>, (u32, u64)) {
    (
        Reverse(table.name_hash(i)),
        Reverse(table.size(i)),
        source_position(table, i),
    )
}

/// Where object `i` is stored in SOURCE, as a sort key: pack by pack in
/// the inventory's order, by offset; loose objects last, by table index.
pub fn source_position(table: &ObjectTable, i: u32) -> (u32, u64) {
    match table.location(i) {
        Location::Packed { pack, offset } => (pack, offset),
        Location::Loose { .. } => (u32::MAX, u64::from(i)),
    }
}

/// Cuts positions `0..n` of a pass's order into pieces of at least
/// [`PIECE`] positions that end only where `key` changes (git's
/// `ll_find_deltas` likewise never splits a run of one name hash between
/// threads): the objects of one path are searched by one window. A piece
/// may exceed [`PIECE`] by a whole run. Objects without a name (`None`:
/// commits, tags, root trees) are no run: git splits its hash-0 runs too,
/// and a chunk of 1024 commits was otherwise one piece, searched by one
/// thread while the others waited.
pub fn pieces<K: PartialEq>(n: usize, key: impl Fn(usize) -> Option<K>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut at = PIECE;
    while at < n {
        let here = key(at);
        if here.is_none() || here != key(at - 1) {
            out.push(start..at);
            start = at;
            at += PIECE;
        } else {
            at += 1;
        }
    }
    if start < n {
        out.push(start..n);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::source_objects::table::test_id;

    #[test]
    fn ties_are_broken_by_the_position_in_source() {
        let at = |pack, offset| Location::Packed { pack, offset };
        let locations = [
            at(0, 300),
            at(1, 12),
            Location::Loose { dir: 0 },
            at(0, 100),
            at(0, 200),
            at(0, 400),
        ];
        let mut table = ObjectTable::new(
            locations
                .iter()
                .enumerate()
                .map(|(n, &l)| (test_id(n as u32), l))
                .collect(),
        );
        let index = |t: &ObjectTable, l| (0..6).find(|&i| t.location(i) == l).expect("listed");
        for i in 0..6 {
            table.set_size(i, 100);
        }
        // Name hash first, then size, both descending: these two lead.
        let (named, larger, tree) = (
            index(&table, at(0, 400)),
            index(&table, at(0, 300)),
            index(&table, at(1, 12)),
        );
        table.set_size(larger, 200);
        table.note_name(named, table.name_note(tree, b"Makefile"));
        let mut order: Vec<u32> = (0..6).collect();
        order.sort_by_key(|&i| git_order(&table, i));
        let sorted: Vec<Location> = order.iter().map(|&i| table.location(i)).collect();
        assert_eq!(
            sorted,
            vec![
                at(0, 400),
                at(0, 300),
                at(0, 100),
                at(0, 200),
                at(1, 12),
                Location::Loose { dir: 0 },
            ]
        );
    }

    #[test]
    fn pieces_end_where_the_key_changes() {
        let keys: Vec<usize> = (0..3000)
            .map(|i| if i < 2000 { i / 1000 } else { i })
            .collect();
        let cut = pieces(keys.len(), |i| Some(keys[i]));
        assert_eq!(cut, vec![0..1000, 1000..2000, 2000..2512, 2512..3000]);
        assert!(pieces(0, Some).is_empty());
        assert_eq!(pieces(5, |_| Some(0)), vec![0..5]);
        // Unnamed objects are cut every PIECE, like distinct names.
        assert_eq!(
            pieces(1100, |_| None::<u32>),
            vec![0..512, 512..1024, 1024..1100]
        );
    }
}
