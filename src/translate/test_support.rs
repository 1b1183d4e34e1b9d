//! Test helpers: fake ids and a bijective SHA-1 <-> SHA-256 map.

use std::collections::HashMap;

use crate::hash::ObjectId;

/// A SHA-1 id made of byte `n`.
pub fn id1(n: u8) -> ObjectId {
    ObjectId::Sha1([n; 20])
}

/// The SHA-256 partner of [`id1`]`(n)` in [`pairs`].
pub fn id2(n: u8) -> ObjectId {
    ObjectId::Sha256([n; 32])
}

/// A mapper knowing `id1(n) <-> id2(n)` for n in 1..=9, both directions.
pub fn pairs() -> impl Fn(&ObjectId) -> Option<ObjectId> {
    let mut m = HashMap::new();
    for n in 1..=9 {
        m.insert(id1(n), id2(n));
        m.insert(id2(n), id1(n));
    }
    move |id: &ObjectId| m.get(id).copied()
}

/// Lowercase hex of an id, as text for building bodies.
pub fn hex(id: ObjectId) -> String {
    id.to_hex()
}
