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
//! cache), answers most lookups without touching the table. A slot holds a
//! SOURCE name and its DEST name (20 and 32 bytes, whichever way the
//! conversion goes) and fits a cache line. On git.git,
//! 16384 slots took 1 s of CPU off 33 s against 4096 (256 KiB); 65536
//! gained no more.
//!
//! The memo belongs to one table: it is keyed by the table's serial, which
//! every table gets anew and which changes whenever a DEST name could be
//! overwritten (`&mut` setters), so a memo can never answer from another
//! table or from a stale name.

use std::cell::RefCell;

use crate::convert::source_objects::table::{ObjectTable, same_id};
use crate::hash::ObjectId;

/// Slots in a thread's memo (a power of two).
const SLOTS: usize = 16384;

/// The bytes of a SOURCE name and a DEST name together: 20 + 32 either way.
const PAIR: usize = 52;

/// One remembered lookup, a cache line wide.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot {
    /// SOURCE's name of the object (as wide as SOURCE's hash), then its
    /// DEST name when `named` (the rest).
    ids: [u8; PAIR],
    /// Table index of the SOURCE name; `u32::MAX` for an empty slot.
    index: u32,
    named: bool,
    /// The upper half of the smallest name note this thread has given the
    /// table for `index` (`u32::MAX`: none): a note whose upper half is
    /// larger is larger, and need not touch the table's row.
    noted: u32,
}

// A slot is one cache line, whichever way the conversion goes.
const _: () = assert!(std::mem::size_of::<Slot>() == 64);

const EMPTY: Slot = Slot {
    ids: [0; PAIR],
    index: u32::MAX,
    named: false,
    noted: u32::MAX,
};

impl Slot {
    /// The SOURCE name it holds, `S` bytes wide.
    #[inline(always)]
    fn source<const S: usize>(&self) -> &[u8; S] {
        self.ids[..S]
            .try_into()
            .expect("a source name fits the slot")
    }
}

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
    pub fn find(&mut self, id: &ObjectId) -> Option<u32> {
        self.slot_of(id)
            .map(|(slot, _)| self.memo.slots[slot].index)
    }

    /// The slot that holds `id` (looked up in the table and taken over if
    /// it held another), and whether SOURCE's names are that wide; `None`
    /// when the table does not have `id`.
    #[inline]
    fn slot_of(&mut self, id: &ObjectId) -> Option<(usize, usize)> {
        if id.kind() != self.table.direction().source() {
            return None;
        }
        match id {
            ObjectId::Sha1(raw) => self.slot_for(raw, id),
            ObjectId::Sha256(raw) => self.slot_for(raw, id),
        }
    }

    #[inline(always)]
    fn slot_for<const S: usize>(&mut self, raw: &[u8; S], id: &ObjectId) -> Option<(usize, usize)> {
        let at = slot_index(raw);
        let slot = &self.memo.slots[at];
        if slot.index != u32::MAX && same_id(slot.source::<S>(), raw) {
            return Some((at, S));
        }
        let found = self.table.find(id)?;
        let mut fresh = Slot {
            index: found,
            ..EMPTY
        };
        fresh.ids[..S].copy_from_slice(raw);
        self.memo.slots[at] = fresh;
        Some((at, S))
    }

    /// [`ObjectTable::find`] and then [`ObjectTable::note_name`] with
    /// `note()`, whose upper half is `upper`; skipped, and `note` not
    /// called (a name hash), when this thread already gave the object a
    /// note with a smaller upper half (the table keeps the smallest).
    #[inline]
    pub fn find_and_note(
        &mut self,
        id: &ObjectId,
        upper: u32,
        note: impl FnOnce() -> u64,
        noted: &mut Vec<(u32, u64)>,
    ) -> Option<u32> {
        let (at, _) = self.slot_of(id)?;
        let slot = &mut self.memo.slots[at];
        if upper <= slot.noted {
            slot.noted = upper;
            let note = note();
            debug_assert_eq!((note >> 32) as u32, upper);
            self.table.note_name(slot.index, note);
            noted.push((slot.index, note));
        }
        Some(slot.index)
    }

    /// The table index of `id` and its DEST name if it has one yet: a
    /// lookup that serves both a translation and a record of what an
    /// object reaches.
    #[inline]
    pub fn find_named(&mut self, id: &ObjectId) -> Option<(u32, Option<ObjectId>)> {
        let (at, width) = self.slot_of(id)?;
        let slot = &mut self.memo.slots[at];
        if !slot.named
            && let Some(name) = self.table.dest_id(slot.index)
        {
            slot.ids[width..].copy_from_slice(name.as_bytes());
            slot.named = true;
        }
        let dest = self.table.direction().dest();
        let name = slot
            .named
            .then(|| ObjectId::from_raw(dest, &slot.ids[width..]).expect("a DEST name fits"));
        Some((slot.index, name))
    }

    /// [`ObjectTable::map_source`], remembered once the object is named.
    #[inline]
    pub fn map_source(&mut self, id: &ObjectId) -> Option<ObjectId> {
        if let Some((_, Some(name))) = self.find_named(id) {
            return Some(name);
        }
        self.table.map_source(id)
    }
}

/// Names are uniform; bytes 4..8 are independent of the fan-out's.
#[inline(always)]
fn slot_index(id: &[u8]) -> usize {
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
                    let i = ObjectId::Sha1(*i);
                    assert_eq!(recent.find(&i), t.find(&i), "round {round}");
                }
                assert_eq!(recent.find(&ObjectId::Sha1(id(u32::MAX))), None);
            });
        }
    }

    #[test]
    fn a_memo_never_answers_for_another_table() {
        let a = ObjectId::Sha1(id(1));
        let first = table(&[id(1), id(2)]);
        let second = table(&[id(2)]);
        first.with_recent(|recent| assert_eq!(recent.find(&a), first.find(&a)));
        assert!(first.find(&a).is_some());
        second.with_recent(|recent| assert_eq!(recent.find(&a), None));
    }

    #[test]
    fn names_are_remembered_only_once_known_and_forgotten_when_overwritten() {
        let mut t = table(&[id(7)]);
        let sha1 = ObjectId::Sha1(id(7));
        t.with_recent(|recent| assert_eq!(recent.map_source(&sha1), None));
        t.name(0, ObjectId::Sha256([1; 32]));
        t.with_recent(|recent| {
            assert_eq!(recent.map_source(&sha1), Some(ObjectId::Sha256([1; 32])));
            assert_eq!(recent.map_source(&sha1), Some(ObjectId::Sha256([1; 32])));
        });
        t.set_dest(0, ObjectId::Sha256([2; 32]));
        t.with_recent(|recent| {
            assert_eq!(recent.map_source(&sha1), Some(ObjectId::Sha256([2; 32])))
        });
        // Well-known ids map without being stored.
        t.with_recent(|recent| {
            assert_eq!(
                recent.map_source(&HashKind::Sha1.empty_tree()),
                Some(HashKind::Sha256.empty_tree())
            )
        });
    }

    #[test]
    fn nested_use_on_one_thread_works() {
        let t = table(&[id(3)]);
        let a = ObjectId::Sha1(id(3));
        t.with_recent(|outer| {
            assert_eq!(outer.find(&a), Some(0));
            t.with_recent(|inner| assert_eq!(inner.find(&a), Some(0)));
        });
    }
}
