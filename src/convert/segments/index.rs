//! Which objects the open output segment holds, found by name, and the
//! length of each one's delta chain: a delta may only name a base of its
//! own segment.
//!
//! A segment holds up to a million objects, and the appender (the one
//! sequential part of a pass) asks for every delta, so this is small and
//! quick: a map from the first 4 bytes of each name to the object's
//! position in the segment (names are uniformly distributed hashes, so
//! those bytes need no hashing, only spreading), with the full name
//! checked against the caller's list of names; the rare object whose
//! prefix an earlier one already has goes to a map by full name. The
//! position is also the object's entry number in the segment's pack,
//! where its offset is. About 12 bytes an object.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasherDefault, Hasher};

use crate::hash::ObjectId;

#[derive(Default)]
pub struct SegmentIndex {
    by_prefix: HashMap<u32, u32, BuildHasherDefault<SpreadPrefix>>,
    /// Objects whose prefix was taken: by full name.
    by_name: HashMap<ObjectId, u32>,
    /// Delta chain length (0: whole) by position; git's `--depth` is at
    /// most 4095.
    depths: Vec<u16>,
}

/// Hashes a name prefix, already uniform in its 32 bits, by one multiply
/// that spreads them over the 64 (the hash table takes its control bits
/// from the top).
#[derive(Default)]
struct SpreadPrefix(u64);

impl Hasher for SpreadPrefix {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u32` is called for a u32 key; this keeps any other
        // key well spread too.
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, prefix: u32) {
        self.0 = u64::from(prefix).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

fn prefix(id: &ObjectId) -> u32 {
    let bytes = id.as_bytes();
    u32::from_le_bytes(bytes[..4].try_into().expect("ids are at least 4 bytes"))
}

impl SegmentIndex {
    pub fn with_capacity(objects: usize) -> Self {
        SegmentIndex {
            by_prefix: HashMap::with_capacity_and_hasher(objects, Default::default()),
            by_name: HashMap::new(),
            depths: Vec::with_capacity(objects),
        }
    }

    /// Records the next object (position = objects recorded before it) and
    /// the length of its delta chain.
    pub fn push(&mut self, id: ObjectId, depth: u32) {
        let position = self.depths.len() as u32;
        self.depths
            .push(u16::try_from(depth).expect("delta chains are at most 4095 long"));
        match self.by_prefix.entry(prefix(&id)) {
            Entry::Occupied(_) => {
                self.by_name.insert(id, position);
            }
            Entry::Vacant(slot) => {
                slot.insert(position);
            }
        }
    }

    /// The position of `id` and its chain length; `name_at(position)` is
    /// the name of the object recorded at `position`.
    pub fn get(&self, id: &ObjectId, name_at: impl Fn(u32) -> ObjectId) -> Option<(u32, u32)> {
        let position = match self.by_prefix.get(&prefix(id)) {
            Some(&p) if name_at(p) == *id => p,
            Some(_) => *self.by_name.get(id)?,
            None => return None,
        };
        Some((position, u32::from(self.depths[position as usize])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(first: u8, last: u8) -> ObjectId {
        let mut raw = [0u8; 32];
        raw[0] = first;
        raw[31] = last;
        ObjectId::Sha256(raw)
    }

    #[test]
    fn names_sharing_a_prefix_are_told_apart() {
        let names = [id(1, 0), id(2, 0), id(1, 9), id(1, 7)];
        let mut index = SegmentIndex::with_capacity(4);
        for (k, name) in names.iter().enumerate() {
            index.push(*name, 10 * k as u32);
        }
        let name_at = |p: u32| names[p as usize];
        for (k, name) in names.iter().enumerate() {
            assert_eq!(index.get(name, name_at), Some((k as u32, 10 * k as u32)));
        }
        // Same prefix as recorded ones, or a new prefix: absent.
        assert_eq!(index.get(&id(1, 8), name_at), None);
        assert_eq!(index.get(&id(3, 0), name_at), None);
    }

    #[test]
    fn many_random_names_are_all_found() {
        let mut rng = crate::pack::write::test_rng::Rng(0x1234_5678_9abc_def0);
        let mut names: Vec<ObjectId> = Vec::new();
        for k in 0..20_000 {
            let mut raw = [0u8; 32];
            for chunk in raw.chunks_mut(8) {
                chunk.copy_from_slice(&rng.next().to_le_bytes());
            }
            if k % 100 == 99 {
                // Every hundredth shares its prefix with the one before.
                raw[..4].copy_from_slice(&names[k - 1].as_bytes()[..4]);
            }
            names.push(ObjectId::Sha256(raw));
        }
        let mut index = SegmentIndex::default();
        for (k, name) in names.iter().enumerate() {
            index.push(*name, (k % 4096) as u32);
        }
        assert_eq!(index.by_name.len(), 200);
        let name_at = |p: u32| names[p as usize];
        for (k, name) in names.iter().enumerate() {
            assert_eq!(
                index.get(name, name_at),
                Some((k as u32, (k % 4096) as u32))
            );
        }
    }
}
