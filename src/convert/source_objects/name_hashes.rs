//! The name hash of every object (`pack/delta_search/name_hash.rs`), which the
//! delta search sorts by, from the tree entries the scan reads.
//!
//! The scan decodes trees in parallel and in no particular order, so a
//! tree does not know its own path when it names its entries. Each entry
//! therefore notes only its own name's share and the tree that gave it:
//! version 2 of an object at `dir/name` is the hash of `dir` joined with
//! the hash of `name`, so the full path's hash follows from the chain of
//! trees once the scan is done ([`NameHashes::get`]). An object some trees
//! name differently keeps the smallest note (the tree with the smallest
//! table index), so the result does not depend on the scan's order; an
//! object no scanned tree names (root trees, commits, tags; objects below
//! a tree an earlier run converted) counts as the root, whose path is
//! empty and whose hash is 0.
//!
//! Memory: 8 bytes per object.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::pack::{NameHashVersion, join_name_hash_v2, name_component_hash_v2, pack_name_hash};

/// No tree names the object.
const UNNAMED: u64 = u64::MAX;
/// The upper half of a note once [`NameHashes::get`] has resolved it, the
/// hash in the lower half. No table index is this large (it would take
/// four billion objects).
const RESOLVED: u32 = u32::MAX - 1;

/// Per object, the smallest note a scanned tree gave it.
///
/// A note is 64 bits, compared as a number: version 1 keeps the entry
/// name's hash in the upper half; version 2 the naming tree's table index
/// in the upper half and the name's own component hash in the lower.
pub struct NameHashes {
    notes: Vec<AtomicU64>,
    version: NameHashVersion,
}

impl NameHashes {
    pub fn new(objects: usize) -> Self {
        NameHashes {
            notes: (0..objects).map(|_| AtomicU64::new(UNNAMED)).collect(),
            version: NameHashVersion::default(),
        }
    }

    /// Which hash the notes taken from now on make (before the scan).
    pub fn set_version(&mut self, version: NameHashVersion) {
        self.version = version;
    }

    pub fn version(&self) -> NameHashVersion {
        self.version
    }

    /// The note for an entry called `name` of the tree at table index
    /// `tree`.
    pub fn note_of(&self, tree: u32, name: &[u8]) -> u64 {
        match self.version {
            NameHashVersion::V1 => u64::from(pack_name_hash(name)) << 32,
            NameHashVersion::V2 => {
                (u64::from(tree) << 32) | u64::from(name_component_hash_v2(name))
            }
        }
    }

    /// The upper half of [`Self::note_of`], which orders notes first and
    /// costs no hash under version 2 (the tree's index).
    pub fn note_upper_of(&self, tree: u32, name: &[u8]) -> u32 {
        match self.version {
            NameHashVersion::V1 => pack_name_hash(name),
            NameHashVersion::V2 => tree,
        }
    }

    /// Notes that a tree names object `i` (`note` from [`Self::note_of`]);
    /// the smallest note is kept.
    pub fn note(&self, i: u32, note: u64) {
        let slot = &self.notes[i as usize];
        if slot.load(Ordering::Relaxed) > note {
            slot.fetch_min(note, Ordering::Relaxed);
        }
    }

    /// The name hash of object `i` (0 when no tree names it). Called once
    /// the scan has taken every note: version 2 follows the chain of
    /// naming trees up to one no tree names, and remembers the hash of
    /// each tree on the way.
    pub fn get(&self, i: u32) -> u32 {
        let note = self.notes[i as usize].load(Ordering::Relaxed);
        if note == UNNAMED {
            return 0;
        }
        let (upper, lower) = ((note >> 32) as u32, note as u32);
        match self.version {
            NameHashVersion::V1 => upper,
            NameHashVersion::V2 if upper == RESOLVED => lower,
            NameHashVersion::V2 => self.resolve(i),
        }
    }

    /// Version 2's hash of object `i`, whose note is not resolved yet.
    fn resolve(&self, i: u32) -> u32 {
        // (object, its component hash), from `i` up the naming trees.
        let mut chain: Vec<(u32, u32)> = Vec::new();
        let mut at = i;
        let dir = loop {
            let note = self.notes[at as usize].load(Ordering::Relaxed);
            if note == UNNAMED {
                break 0;
            }
            let (upper, lower) = ((note >> 32) as u32, note as u32);
            if upper == RESOLVED {
                break lower;
            }
            if chain.len() >= self.notes.len() {
                // Trees that name each other in a ring: their ids would be
                // preimages of each other, which the scan's checks make
                // impossible. Never loop; never remember.
                return 0;
            }
            chain.push((at, lower));
            at = upper;
            if at as usize >= self.notes.len() {
                // Not a tree of this table (notes are only ever taken
                // from its own trees): the root.
                break 0;
            }
        };
        chain.iter().rev().fold(dir, |dir, &(at, component)| {
            let hash = join_name_hash_v2(dir, component);
            let resolved = (u64::from(RESOLVED) << 32) | u64::from(hash);
            self.notes[at as usize].store(resolved, Ordering::Relaxed);
            hash
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::pack_name_hash_v2;

    #[test]
    fn version_2_hashes_the_whole_path_from_the_chain_of_trees() {
        // 0: root tree; 1: "src" in it; 2: "src/pack"; 3: "src/pack/Makefile";
        // 4: a blob named "Makefile" by the root and "src/Makefile" by 1.
        let names = NameHashes::new(6);
        names.note(3, names.note_of(2, b"Makefile"));
        names.note(2, names.note_of(1, b"pack"));
        names.note(1, names.note_of(0, b"src"));
        names.note(4, names.note_of(1, b"Makefile"));
        names.note(4, names.note_of(0, b"Makefile"));
        assert_eq!(names.get(3), pack_name_hash_v2(b"src/pack/Makefile"));
        // Resolved on the way: the trees' own paths.
        assert_eq!(names.get(2), pack_name_hash_v2(b"src/pack"));
        assert_eq!(names.get(1), pack_name_hash_v2(b"src"));
        assert_eq!(names.get(0), 0);
        // The smallest note: the root's (tree 0) name for object 4.
        assert_eq!(names.get(4), pack_name_hash_v2(b"Makefile"));
        assert_eq!(names.get(5), 0, "no tree names it");
        // Asked again, resolved notes answer the same.
        assert_eq!(names.get(3), pack_name_hash_v2(b"src/pack/Makefile"));
    }

    #[test]
    fn version_1_hashes_the_entry_name_and_keeps_the_smallest() {
        let mut names = NameHashes::new(2);
        names.set_version(NameHashVersion::V1);
        names.note(1, names.note_of(0, b"zzz"));
        names.note(1, names.note_of(0, b"Makefile"));
        let smallest = pack_name_hash(b"zzz").min(pack_name_hash(b"Makefile"));
        assert_eq!(names.get(1), smallest);
        assert_eq!(names.get(0), 0);
    }

    #[test]
    fn a_ring_of_trees_ends() {
        let names = NameHashes::new(2);
        names.note(0, names.note_of(1, b"a"));
        names.note(1, names.note_of(0, b"b"));
        assert_eq!(names.get(0), 0);
    }
}
