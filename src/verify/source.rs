//! Read-only access to SOURCE's objects for the forward checks: its packs
//! (SHA-1 indexes) and loose objects. Opened with the pack readers
//! directly, not through the converter's inventory.

use std::path::{Path, PathBuf};

use super::VerifyError;
use crate::hash::{HashKind, ObjectId};
use crate::loose;
use crate::object::ObjectKind;
use crate::pack::list_packs;
use crate::pack::{DeltaCache, Pack};

/// SOURCE's object stores.
pub struct SourceObjects {
    pub git_dir: PathBuf,
    objects_dir: PathBuf,
    packs: Vec<Pack>,
}

impl SourceObjects {
    pub fn open(git_dir: &Path) -> Result<Self, VerifyError> {
        let objects_dir = git_dir.join("objects");
        let mut packs = Vec::new();
        let pack_dir = objects_dir.join("pack");
        let idx_paths = list_packs(&pack_dir).map_err(|e| VerifyError::io(&pack_dir, e))?;
        for idx in idx_paths {
            let pack =
                Pack::open(&idx, HashKind::Sha1).map_err(|e| VerifyError::NotAConversion {
                    path: idx.clone(),
                    reason: format!("SOURCE pack cannot be read: {e}"),
                })?;
            packs.push(pack);
        }
        Ok(SourceObjects {
            git_dir: git_dir.to_owned(),
            objects_dir,
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
        loose::read_loose(&self.objects_dir, id).ok()
    }

    /// Every object id SOURCE stores (packed and loose; may repeat).
    pub fn ids(&self) -> Vec<ObjectId> {
        let mut out: Vec<ObjectId> = self
            .packs
            .iter()
            .flat_map(|p| (0..p.idx.num_objects()).map(|i| p.idx.oid_at(i)))
            .collect();
        out.extend(loose::list_loose(&self.objects_dir, HashKind::Sha1).unwrap_or_default());
        out
    }
}
