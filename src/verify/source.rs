//! Read-only access to SOURCE's objects for the forward checks: the packs
//! and loose objects of its object directory and of those it borrows from
//! (alternates), named in SOURCE's hash. Opened with the pack readers directly,
//! not through the converter's inventory.

use std::path::{Path, PathBuf};

use super::error::VerifyError;
use crate::hash::{HashKind, ObjectId};
use crate::loose;
use crate::object::ObjectKind;
use crate::pack::list_packs;
use crate::pack::{DeltaCache, Pack};
use crate::repo::SourceRepo;

/// SOURCE's object stores.
pub struct SourceObjects {
    pub git_dir: PathBuf,
    /// The hash that names its objects.
    hash: HashKind,
    /// Its `objects/`, then its alternates.
    object_dirs: Vec<PathBuf>,
    packs: Vec<Pack>,
}

impl SourceObjects {
    pub fn open(repo: &SourceRepo) -> Result<Self, VerifyError> {
        let object_dirs: Vec<PathBuf> = repo.object_dirs().map(Path::to_path_buf).collect();
        let mut idx_paths = Vec::new();
        for dir in &object_dirs {
            let pack_dir = dir.join("pack");
            idx_paths.extend(list_packs(&pack_dir).map_err(|e| VerifyError::io(&pack_dir, e))?);
        }
        let mut packs = Vec::new();
        for idx in idx_paths {
            let pack = Pack::open(&idx, repo.object_format).map_err(|e| VerifyError::Damaged {
                path: idx.clone(),
                reason: format!("SOURCE pack: {e}"),
            })?;
            packs.push(pack);
        }
        Ok(SourceObjects {
            git_dir: repo.git_dir.clone(),
            hash: repo.object_format,
            object_dirs,
            packs,
        })
    }

    /// The object `id`, from whichever store has it.
    pub fn read(&self, id: &ObjectId) -> Option<(ObjectKind, Vec<u8>)> {
        for pack in &self.packs {
            if let Some(offset) = pack.find(id) {
                let mut cache = DeltaCache::new(16 << 20);
                let mut out = Vec::new();
                let external = |base: &ObjectId| self.read(base);
                let kind = pack.read_at(offset, &mut cache, &external, &mut out).ok()?;
                return Some((kind, out));
            }
        }
        self.object_dirs
            .iter()
            .find_map(|dir| loose::read_loose(dir, id).ok())
    }

    /// Every object id SOURCE stores (packed and loose; may repeat).
    pub fn ids(&self) -> Vec<ObjectId> {
        let mut out: Vec<ObjectId> = self
            .packs
            .iter()
            .flat_map(|p| (0..p.idx.num_objects()).map(|i| p.idx.oid_at(i)))
            .collect();
        for dir in &self.object_dirs {
            out.extend(loose::list_loose(dir, self.hash).unwrap_or_default());
        }
        out
    }
}
