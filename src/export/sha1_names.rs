//! The SHA-1 side of every name an export meets: DEST's map read into
//! memory (every pair, searchable both ways: `verify`'s [`MapIndex`]),
//! the pairs of gitlink targets, and the pairs this run works out for the
//! objects made in DEST since its conversion, added wave by wave.

use std::collections::HashMap;
use std::path::Path;

use super::error::ExportError;
use crate::gitlink_maps::external_map::surrogate_for;
use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;
use crate::verify::{Created, GitlinkPair, MapIndex};

/// SHA-256 -> SHA-1 for an export.
pub struct Names {
    index: MapIndex,
    /// Pairs this run worked out (objects made in DEST).
    added: HashMap<[u8; 32], [u8; 20]>,
    /// Surrogate names of gitlink targets no map knows
    /// (`--unmapped-gitlinks=placeholder`).
    surrogates: HashMap<[u8; 32], [u8; 20]>,
}

impl Names {
    /// DEST's map at `map_path`, with the gitlink pairs.
    pub fn load(map_path: &Path, gitlinks: Vec<GitlinkPair>) -> Result<Self, ExportError> {
        let mut index = MapIndex::load(map_path)?;
        index.set_gitlinks(gitlinks);
        Ok(Names {
            index,
            added: HashMap::new(),
            surrogates: HashMap::new(),
        })
    }

    /// The SHA-1 name of a SHA-256 one: a DEST object's (recorded or
    /// worked out by this run), or a gitlink target's.
    pub fn sha1_of(&self, id: &ObjectId) -> Option<ObjectId> {
        let ObjectId::Sha256(raw) = id else {
            return None;
        };
        if let Some(sha1) = self.added.get(raw).or_else(|| self.surrogates.get(raw)) {
            return Some(ObjectId::Sha1(*sha1));
        }
        self.index.reverse(id)
    }

    /// The pair DEST's map records for the object `id`, and its type.
    pub fn recorded(&self, id: &ObjectId) -> Option<(ObjectId, ObjectKind)> {
        let ObjectId::Sha256(raw) = id else {
            return None;
        };
        let row = self.index.row(self.index.find_sha256(raw)?);
        Some((ObjectId::Sha1(row.sha1), row.kind))
    }

    /// The object `id`, if `--rekey-notes` created it in DEST (it has no
    /// SHA-1 name).
    pub fn created(&self, id: &ObjectId) -> Option<Created> {
        self.index.find_created(id).map(|(_, c)| c)
    }

    /// Whether the SHA-1 name `id` is one DEST's map knows.
    pub fn knows_sha1(&self, id: &ObjectId) -> bool {
        id.kind() == HashKind::Sha1 && self.index.forward(id).is_some()
    }

    /// Adds the pair this run worked out for a DEST object.
    pub fn add(&mut self, sha256: &ObjectId, sha1: &ObjectId) {
        if let (ObjectId::Sha256(a), ObjectId::Sha1(b)) = (sha256, sha1) {
            self.added.insert(*a, *b);
        }
    }

    /// Names the gitlink target `id` by its surrogate; returns it.
    pub fn add_surrogate(&mut self, id: &ObjectId) -> ObjectId {
        let surrogate = surrogate_for(id);
        if let (ObjectId::Sha256(a), ObjectId::Sha1(b)) = (id, surrogate) {
            self.surrogates.insert(*a, b);
        }
        surrogate
    }

    pub fn surrogate_count(&self) -> u64 {
        self.surrogates.len() as u64
    }
}
