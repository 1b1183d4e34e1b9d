//! What MIRROR already has: the names in the indexes of its packs (any
//! pack git reads) and its loose objects, and, apart, the segments an
//! interrupted export left in `rehash-export/segments/` (written, not
//! folded into a pack of MIRROR yet). Only names are read: an object
//! MIRROR has is not written again, whatever state it is in.

use std::collections::HashSet;
use std::path::Path;

use rayon::prelude::*;

use super::error::ExportError;
use crate::durable::PathError;
use crate::hash::{HashKind, ObjectId};
use crate::loose::list_loose;
use crate::pack::{IndexFile, list_packs};

/// A set of SHA-1 names, as pack indexes and loose objects hold them.
pub struct ObjectNames {
    indexes: Vec<IndexFile>,
    loose: HashSet<ObjectId>,
}

impl ObjectNames {
    /// The packs of `pack_dir`, and the loose objects of `objects_dir` if
    /// given.
    pub fn open(pack_dir: &Path, objects_dir: Option<&Path>) -> Result<Self, ExportError> {
        let paths = list_packs(pack_dir).map_err(PathError::at(pack_dir))?;
        let indexes = paths
            .par_iter()
            .map(|idx| IndexFile::open(idx, HashKind::Sha1))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| PathError::new(pack_dir, std::io::Error::other(e)))?;
        let loose = match objects_dir {
            Some(dir) => list_loose(dir, HashKind::Sha1)
                .map_err(|e| PathError::new(dir, std::io::Error::other(e)))?
                .into_iter()
                .collect(),
            None => HashSet::new(),
        };
        Ok(ObjectNames { indexes, loose })
    }

    /// The names of the one pack whose index is `idx`.
    pub fn open_one(idx: &Path) -> Result<Self, ExportError> {
        let index = IndexFile::open(idx, HashKind::Sha1)
            .map_err(|e| PathError::new(idx, std::io::Error::other(e)))?;
        Ok(ObjectNames {
            indexes: vec![index],
            loose: HashSet::new(),
        })
    }

    /// Whether `id` is in a pack or loose.
    pub fn has(&self, id: &ObjectId) -> bool {
        self.loose.contains(id) || self.indexes.iter().any(|idx| idx.lookup(id).is_some())
    }

    /// The index files, as opened (the segments a fold reads).
    pub fn index_paths(&self) -> Vec<&Path> {
        self.indexes.iter().map(IndexFile::path).collect()
    }

    /// Every name of every pack, in index order (duplicates across packs
    /// repeated).
    pub fn packed_ids(&self) -> impl Iterator<Item = (usize, ObjectId)> + '_ {
        self.indexes
            .iter()
            .enumerate()
            .flat_map(|(p, idx)| (0..idx.num_objects()).map(move |i| (p, idx.oid_at(i))))
    }
}
