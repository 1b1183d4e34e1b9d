//! Where each object of the open output segment sits (its entry offset and
//! delta chain length), found by name: a delta may only name a base of its
//! own segment.
//!
//! A segment holds up to a million objects, so this is kept small: a map
//! from the first 8 bytes of each name to the object's position (names are
//! uniformly distributed hashes), with the full name checked against the
//! caller's list of names; the rare object whose 8-byte prefix an earlier
//! one already has goes to a map by full name. About 40 bytes an object,
//! against ~100 for a map keyed by full names with the places in it.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use crate::hash::ObjectId;

#[derive(Default)]
pub struct SegmentIndex {
    by_prefix: HashMap<u64, u32>,
    /// Objects whose prefix was taken: by full name.
    by_name: HashMap<ObjectId, u32>,
    /// (offset, chain length) by position.
    places: Vec<(u64, u32)>,
}

fn prefix(id: &ObjectId) -> u64 {
    let bytes = id.as_bytes();
    u64::from_le_bytes(bytes[..8].try_into().expect("ids are at least 8 bytes"))
}

impl SegmentIndex {
    pub fn with_capacity(objects: usize) -> Self {
        SegmentIndex {
            by_prefix: HashMap::with_capacity(objects),
            by_name: HashMap::new(),
            places: Vec::with_capacity(objects),
        }
    }

    /// Records the next object (position = objects recorded before it).
    pub fn push(&mut self, id: ObjectId, offset: u64, depth: u32) {
        let position = self.places.len() as u32;
        self.places.push((offset, depth));
        match self.by_prefix.entry(prefix(&id)) {
            Entry::Occupied(_) => {
                self.by_name.insert(id, position);
            }
            Entry::Vacant(slot) => {
                slot.insert(position);
            }
        }
    }

    /// The place of `id`; `name_at(position)` is the name of the object
    /// recorded at `position`.
    pub fn get(&self, id: &ObjectId, name_at: impl Fn(u32) -> ObjectId) -> Option<(u64, u32)> {
        let position = match self.by_prefix.get(&prefix(id)) {
            Some(&p) if name_at(p) == *id => p,
            Some(_) => *self.by_name.get(id)?,
            None => return None,
        };
        Some(self.places[position as usize])
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
            index.push(*name, 100 * k as u64, k as u32);
        }
        let name_at = |p: u32| names[p as usize];
        for (k, name) in names.iter().enumerate() {
            assert_eq!(index.get(name, name_at), Some((100 * k as u64, k as u32)));
        }
        // Same prefix as recorded ones, or a new prefix: absent.
        assert_eq!(index.get(&id(1, 8), name_at), None);
        assert_eq!(index.get(&id(3, 0), name_at), None);
    }
}
