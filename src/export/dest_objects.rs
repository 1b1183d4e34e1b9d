//! DEST's objects, as git reads them: every pack of `objects/pack` and
//! every loose object, found by SHA-256 name, read whole (the name
//! checked against the content) or, for a packed entry, as it is stored
//! (its CRC32 checked against the index), so a blob can be copied into
//! MIRROR without inflating it: its bytes are the same in both worlds.
//!
//! Anything that cannot be read, or is not what its name says, is a
//! corrupt DEST, named by object and file.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::error::{CorruptDest, ExportError};
use crate::durable::PathError;
use crate::hash::{HashKind, ObjectId};
use crate::loose::{list_loose, loose_path, read_loose};
use crate::object::{ObjectKind, sha256_object_id};
use crate::pack::{DeltaCache, EntryKind, MAX_CHAIN_DEPTH, Pack, PackLayout, list_packs};

/// The pack number of a loose object's [`Location`].
const LOOSE: u32 = u32::MAX;

/// Where DEST stores an object: a pack and the object's position in its
/// index, or a loose object and its position among the loose names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    pack: u32,
    position: u32,
}

impl Location {
    pub fn is_loose(self) -> bool {
        self.pack == LOOSE
    }
}

/// How a packed object is stored, for copying it as it is.
pub enum Stored<'a> {
    /// Whole: the zlib stream of the `size`-byte object of type `kind`.
    Whole {
        kind: ObjectKind,
        zlib: &'a [u8],
        size: u64,
    },
    /// A delta of `size` bytes against the object at `base`.
    Delta {
        base: Location,
        zlib: &'a [u8],
        size: u64,
    },
}

/// DEST's object store.
pub struct DestObjects {
    objects_dir: PathBuf,
    packs: Vec<Pack>,
    /// Sorted.
    loose: Vec<ObjectId>,
}

impl DestObjects {
    pub fn open(objects_dir: &Path) -> Result<Self, ExportError> {
        let pack_dir = objects_dir.join("pack");
        let indexes = list_packs(&pack_dir).map_err(PathError::at(&pack_dir))?;
        let packs = indexes
            .par_iter()
            .map(|idx| {
                Pack::open(idx, HashKind::Sha256).map_err(|e| CorruptDest::Store {
                    reason: e.to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let loose = list_loose(objects_dir, HashKind::Sha256).map_err(|e| CorruptDest::Store {
            reason: e.to_string(),
        })?;
        Ok(DestObjects {
            objects_dir: objects_dir.to_owned(),
            packs,
            loose,
        })
    }

    /// Every stored object: each pack's in index order, then the loose
    /// ones. An object stored twice comes twice.
    pub fn locations(&self) -> impl Iterator<Item = Location> + '_ {
        let packed = self.packs.iter().enumerate().flat_map(|(p, pack)| {
            (0..pack.idx.num_objects()).map(move |position| Location {
                pack: p as u32,
                position,
            })
        });
        let loose = (0..self.loose.len() as u32).map(|position| Location {
            pack: LOOSE,
            position,
        });
        packed.chain(loose)
    }

    pub fn id(&self, at: Location) -> ObjectId {
        match at.pack {
            LOOSE => self.loose[at.position as usize],
            p => self.packs[p as usize].idx.oid_at(at.position),
        }
    }

    /// The order DEST stores objects in: by pack and offset, loose last.
    pub fn storage_key(&self, at: Location) -> (u32, u64) {
        match at.pack {
            LOOSE => (LOOSE, u64::from(at.position)),
            p => (p, self.packs[p as usize].idx.offset_at(at.position)),
        }
    }

    /// Where `id` is stored, if DEST has it.
    pub fn find(&self, id: &ObjectId) -> Option<Location> {
        self.packs
            .iter()
            .enumerate()
            .find_map(|(p, pack)| {
                pack.idx.lookup(id).map(|position| Location {
                    pack: p as u32,
                    position,
                })
            })
            .or_else(|| {
                self.loose.binary_search(id).ok().map(|i| Location {
                    pack: LOOSE,
                    position: i as u32,
                })
            })
    }

    /// The file that holds the object at `at`, for messages.
    pub fn file(&self, at: Location) -> PathBuf {
        match at.pack {
            LOOSE => loose_path(&self.objects_dir, &self.id(at)),
            p => self.packs[p as usize].data.path().to_owned(),
        }
    }

    /// Bytes the object takes where it is stored (a chunk's memory budget
    /// counts these).
    pub fn stored_size(&self, at: Location) -> u64 {
        match at.pack {
            LOOSE => std::fs::metadata(self.file(at)).map_or(0, |m| m.len()),
            p => {
                let pack = &self.packs[p as usize];
                let offset = pack.idx.offset_at(at.position);
                PackLayout::new(pack)
                    .ok()
                    .and_then(|l| l.entry(offset))
                    .map_or(0, |(_, end)| end - offset)
            }
        }
    }

    /// The object's type, from the entry headers down its delta chain:
    /// nothing is inflated (but a loose object, whose header is inside
    /// its zlib stream).
    pub fn kind(&self, at: Location) -> Result<ObjectKind, ExportError> {
        let mut at = at;
        for _ in 0..=MAX_CHAIN_DEPTH {
            if at.is_loose() {
                return self.read_loose_at(at).map(|(kind, _)| kind);
            }
            let pack = &self.packs[at.pack as usize];
            let mut offset = pack.idx.offset_at(at.position);
            loop {
                let entry = pack
                    .data
                    .entry_at(offset)
                    .map_err(|e| self.unreadable(at, e))?;
                match entry.kind {
                    EntryKind::Base(kind) => return Ok(kind),
                    EntryKind::OfsDelta { base_offset } => offset = base_offset,
                    EntryKind::RefDelta { base_id } => match pack.find(&base_id) {
                        Some(base_offset) => offset = base_offset,
                        None => {
                            at = self.find(&base_id).ok_or_else(|| {
                                self.unreadable(at, format!("delta base {base_id} is missing"))
                            })?;
                            break;
                        }
                    },
                }
            }
        }
        Err(self.unreadable(at, "delta chain does not end").into())
    }

    /// The whole object at `at` into `out`; its content must hash to its
    /// name. `cache` holds delta bases of one pack at a time.
    pub fn read(
        &self,
        at: Location,
        cache: &mut DeltaCache,
        out: &mut Vec<u8>,
    ) -> Result<ObjectKind, ExportError> {
        let kind = if at.is_loose() {
            let (kind, body) = self.read_loose_at(at)?;
            *out = body;
            kind
        } else {
            let pack = &self.packs[at.pack as usize];
            cache.claim(u64::from(at.pack));
            let external = |id: &ObjectId| self.read_elsewhere(id, at.pack);
            pack.read_at(pack.idx.offset_at(at.position), cache, &external, out)
                .map_err(|e| self.unreadable(at, e))?
        };
        let actual = sha256_object_id(kind, out);
        let id = self.id(at);
        if actual != id {
            return Err(CorruptDest::NameMismatch {
                id,
                kind,
                actual,
                file: self.file(at),
            }
            .into());
        }
        Ok(kind)
    }

    /// The packed entry at `at` as it is stored, checked against the CRC32
    /// its index records; `None` for a loose object.
    pub fn stored(&self, at: Location) -> Result<Option<Stored<'_>>, ExportError> {
        if at.is_loose() {
            return Ok(None);
        }
        let pack = &self.packs[at.pack as usize];
        let layout = PackLayout::new(pack).map_err(|e| self.unreadable(at, e))?;
        let offset = pack.idx.offset_at(at.position);
        let entry = pack
            .data
            .entry_at(offset)
            .map_err(|e| self.unreadable(at, e))?;
        let (_, end) = layout
            .entry(offset)
            .ok_or_else(|| self.unreadable(at, "no entry at its offset"))?;
        let whole = pack
            .data
            .raw(offset..end)
            .map_err(|e| self.unreadable(at, e))?;
        if pack
            .idx
            .crc32_at(at.position)
            .is_some_and(|crc| crc != crc32fast::hash(whole))
        {
            return Err(self
                .unreadable(
                    at,
                    format!(
                        "the entry at offset {offset} does not match the CRC32 its index records"
                    ),
                )
                .into());
        }
        let zlib = &whole[(entry.data_offset - offset) as usize..];
        let size = entry.size;
        let base = match entry.kind {
            EntryKind::Base(kind) => return Ok(Some(Stored::Whole { kind, zlib, size })),
            EntryKind::OfsDelta { base_offset } => layout.entry(base_offset).map(|(p, _)| p),
            EntryKind::RefDelta { base_id } => pack.idx.lookup(&base_id),
        };
        Ok(base.map(|position| Stored::Delta {
            base: Location {
                pack: at.pack,
                position,
            },
            zlib,
            size,
        }))
    }

    fn read_loose_at(&self, at: Location) -> Result<(ObjectKind, Vec<u8>), ExportError> {
        read_loose(&self.objects_dir, &self.id(at)).map_err(|e| self.unreadable(at, e).into())
    }

    /// A delta base stored outside pack `not_in` (git's packs are
    /// self-contained, so only a damaged one asks).
    fn read_elsewhere(&self, id: &ObjectId, not_in: u32) -> Option<(ObjectKind, Vec<u8>)> {
        let at = self.find(id).filter(|at| at.pack != not_in)?;
        let mut body = Vec::new();
        let kind = self.read(at, &mut DeltaCache::new(0), &mut body).ok()?;
        Some((kind, body))
    }

    fn unreadable(
        &self,
        at: Location,
        why: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> CorruptDest {
        CorruptDest::Unreadable {
            id: self.id(at),
            file: self.file(at),
            source: why.into(),
        }
    }
}
