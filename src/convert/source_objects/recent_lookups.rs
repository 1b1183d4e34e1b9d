//! A per-thread memo of the object table's recent lookups.
//!
//! Every entry of every tree version is looked up in the table by the
//! translation (its id and its index, in one lookup), and by the scan
//! unless the tree's delta base holds the same entry; each lookup of a
//! random id waits on two or three loads from far memory (the fan-out,
//! the SHA-1 row, the SHA-256 row): `perf annotate` puts ~95% of the lookup's time
//! on those loads. Most entries of a tree version are the entries of the
//! version before it, and a thread handles the versions of one directory
//! close together (a delta chain in the scan, a wave in pack order in the
//! translation), so a direct-mapped memo, 1 MiB per thread (a core's L2
//! cache), answers most lookups without touching the table. On git.git,
//! 16384 slots took 1 s of CPU off 33 s against 4096 (256 KiB); 65536
//! gained no more.
//!
//! The memo belongs to one table: it is keyed by the table's serial, which
//! every table gets anew and which changes whenever a SHA-256 name could be
//! overwritten (`&mut` setters), so a memo can never answer from another
//! table or from a stale name.

use std::cell::RefCell;

use crate::convert::source_objects::table::ObjectTable;
use crate::hash::ObjectId;

/// Slots in a thread's memo (a power of two).
const SLOTS: usize = 16384;

/// One remembered lookup, a cache line wide.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot {
    sha1: [u8; 20],
    /// Table index of `sha1`; `u32::MAX` for an empty slot.
    index: u32,
    /// The object's SHA-256 name, when `named`.
    sha256: [u8; 32],
    named: bool,
    /// The upper half of the smallest name note this thread has given the
    /// table for `index` (`u32::MAX`: none): a note whose upper half is
    /// larger is larger, and need not touch the table's row.
    noted: u32,
}

const EMPTY: Slot = Slot {
    sha1: [0; 20],
    index: u32::MAX,
    sha256: [0; 32],
    named: false,
    noted: u32::MAX,
};

struct Memo {
    serial: u64,
    slots: Vec<Slot>,
}

thread_local! {
    static MEMO: RefCell<Memo> = const { RefCell::new(Memo { serial: 0, slots: Vec::new() }) };
}

/// Lookups in one table through this thread's memo (see the module doc).
pub struct RecentLookups<'a> {
    table: &'a ObjectTable,
    memo: &'a mut Memo,
}

impl ObjectTable {
    /// Runs `f` with this thread's memo of lookups in this table. A nested
    /// call on the same thread (not made today) gets a private, empty memo.
    pub fn with_recent<R>(&self, f: impl FnOnce(&mut RecentLookups<'_>) -> R) -> R {
        MEMO.with(|cell| {
            let mut shared = cell.try_borrow_mut().ok();
            let mut private = Memo {
                serial: 0,
                slots: Vec::new(),
            };
            let memo = shared.as_deref_mut().unwrap_or(&mut private);
            if memo.serial != self.serial() {
                memo.serial = self.serial();
                memo.slots.clear();
                memo.slots.resize(SLOTS, EMPTY);
            }
            f(&mut RecentLookups { table: self, memo })
        })
    }
}

impl RecentLookups<'_> {
    /// [`ObjectTable::find`], remembered.
    #[inline]
    pub fn find(&mut self, id: &[u8; 20]) -> Option<u32> {
        let slot = &mut self.memo.slots[slot_of(id)];
        if slot.index != u32::MAX && slot.sha1 == *id {
            return Some(slot.index);
        }
        let found = self.table.find(id)?;
        *slot = Slot {
            sha1: *id,
            index: found,
            ..EMPTY
        };
        Some(found)
    }

    /// [`ObjectTable::find`] and then [`ObjectTable::note_name`] with
    /// `note()`, whose upper half is `upper`; skipped, and `note` not
    /// called (a name hash), when this thread already gave the object a
    /// note with a smaller upper half (the table keeps the smallest).
    #[inline]
    pub fn find_and_note(
        &mut self,
        id: &[u8; 20],
        upper: u32,
        note: impl FnOnce() -> u64,
        noted: &mut Vec<(u32, u64)>,
    ) -> Option<u32> {
        let found = self.find(id)?;
        let slot = &mut self.memo.slots[slot_of(id)];
        if upper <= slot.noted {
            slot.noted = upper;
            let note = note();
            debug_assert_eq!((note >> 32) as u32, upper);
            self.table.note_name(found, note);
            noted.push((found, note));
        }
        Some(found)
    }

    /// The table index of `id` and its SHA-256 name if it has one yet: a
    /// lookup that serves both a translation and a record of what an
    /// object reaches.
    #[inline]
    pub fn find_named(&mut self, id: &[u8; 20]) -> Option<(u32, Option<[u8; 32]>)> {
        let found = self.find(id)?;
        let slot = &mut self.memo.slots[slot_of(id)];
        if !slot.named
            && let Some(ObjectId::Sha256(name)) = self.table.sha256(found)
        {
            slot.sha256 = name;
            slot.named = true;
        }
        Some((found, slot.named.then_some(slot.sha256)))
    }

    /// [`ObjectTable::map_sha1`], remembered once the object is named.
    #[inline]
    pub fn map_sha1(&mut self, id: &ObjectId) -> Option<ObjectId> {
        if let ObjectId::Sha1(raw) = id
            && let Some((_, Some(name))) = self.find_named(raw)
        {
            return Some(ObjectId::Sha256(name));
        }
        self.table.map_sha1(id)
    }
}

/// SHA-1 ids are uniform; bytes 4..8 are independent of the fan-out's.
#[inline(always)]
fn slot_of(id: &[u8; 20]) -> usize {
    u32::from_le_bytes([id[4], id[5], id[6], id[7]]) as usize & (SLOTS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::source_objects::table::{Location, test_id as id};
    use crate::hash::HashKind;

    fn table(ids: &[[u8; 20]]) -> ObjectTable {
        ObjectTable::new(
            ids.iter()
                .map(|&i| (i, Location::Loose { dir: 0 }))
                .collect(),
        )
    }

    #[test]
    fn answers_as_the_table_does_also_when_slots_collide() {
        // 3 x SLOTS ids: every slot is taken over several times.
        let ids: Vec<_> = (0..3 * SLOTS as u32).map(id).collect();
        let t = table(&ids);
        for round in 0..2 {
            t.with_recent(|recent| {
                for i in &ids {
                    assert_eq!(recent.find(i), t.find(i), "round {round}");
                }
                assert_eq!(recent.find(&id(u32::MAX)), None);
            });
        }
    }

    #[test]
    fn a_memo_never_answers_for_another_table() {
        let (a, b) = (id(1), id(2));
        let first = table(&[a, b]);
        let second = table(&[b]);
        first.with_recent(|recent| assert_eq!(recent.find(&a), first.find(&a)));
        assert!(first.find(&a).is_some());
        second.with_recent(|recent| assert_eq!(recent.find(&a), None));
    }

    #[test]
    fn names_are_remembered_only_once_known_and_forgotten_when_overwritten() {
        let a = id(7);
        let mut t = table(&[a]);
        let sha1 = ObjectId::Sha1(a);
        t.with_recent(|recent| assert_eq!(recent.map_sha1(&sha1), None));
        t.name(0, [1; 32]);
        t.with_recent(|recent| {
            assert_eq!(recent.map_sha1(&sha1), Some(ObjectId::Sha256([1; 32])));
            assert_eq!(recent.map_sha1(&sha1), Some(ObjectId::Sha256([1; 32])));
        });
        t.set_sha256(0, [2; 32]);
        t.with_recent(|recent| assert_eq!(recent.map_sha1(&sha1), Some(ObjectId::Sha256([2; 32]))));
        // Well-known ids map without being stored.
        t.with_recent(|recent| {
            assert_eq!(
                recent.map_sha1(&HashKind::Sha1.empty_tree()),
                Some(HashKind::Sha256.empty_tree())
            )
        });
    }

    #[test]
    fn nested_use_on_one_thread_works() {
        let a = id(3);
        let t = table(&[a]);
        t.with_recent(|outer| {
            assert_eq!(outer.find(&a), Some(0));
            t.with_recent(|inner| assert_eq!(inner.find(&a), Some(0)));
        });
    }
}
