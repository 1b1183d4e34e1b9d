//! Listing what the source stores: the packs and loose objects of its
//! object directory and of every directory it borrows from (alternates),
//! as one object table, plus a reader that fetches any object's bytes.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::convert::error::ConvertError;
use crate::convert::source_objects::table::{Location, ObjectTable};
use crate::hash::{HashKind, ObjectId};
use crate::loose;
use crate::object::ObjectKind;
use crate::pack::{DeltaCache, Pack};
use crate::repo::SourceRepo;

/// Objects up to this size are kept in the caller's delta cache after a read.
const CACHE_OBJECT_LIMIT: usize = 4 << 20;

/// The source's object stores, opened read-only (packs are memory-mapped).
pub struct Inventory {
    /// The packs of every object directory, directory by directory.
    pub packs: Vec<Pack>,
    pub pack_paths: Vec<PathBuf>,
    /// SOURCE's `objects/`, then its alternates in git's order.
    pub object_dirs: Vec<PathBuf>,
    /// Unique per opened inventory: with the pack number, it names a pack
    /// for [`DeltaCache::claim`] (caches outlive an inventory: thread-locals).
    generation: u64,
}

static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

impl Inventory {
    /// Opens every `pack/*.idx` (with its `.pack`) of every object
    /// directory, checks them ([`Inventory::verify`]) and lists the loose
    /// objects. Returns the inventory and the table of all objects.
    pub fn open(source: &SourceRepo) -> Result<(Self, ObjectTable), ConvertError> {
        let (inventory, table) = Self::open_unverified(source)?;
        inventory.verify()?;
        Ok((inventory, table))
    }

    /// The whole-file checks of every source pack (`verify.rs`): trailers,
    /// index offsets, CRC32s.
    pub fn verify(&self) -> Result<(), ConvertError> {
        self.packs
            .iter()
            .try_for_each(crate::pack::verify_pack)
            .map_err(ConvertError::from)
    }

    /// [`Inventory::open`] without the whole-file checks, for a caller that
    /// runs them alongside its own reading and lets them decide first.
    ///
    /// An object stored in several places keeps the first: packs before
    /// loose objects, SOURCE's own directory before its alternates.
    pub fn open_unverified(source: &SourceRepo) -> Result<(Self, ObjectTable), ConvertError> {
        let object_dirs: Vec<PathBuf> = source.object_dirs().map(Path::to_path_buf).collect();
        // Stable order: the same inputs give the same output pack.
        let mut idx_paths = Vec::new();
        for dir in &object_dirs {
            let pack_dir = dir.join("pack");
            idx_paths.extend(
                crate::pack::list_packs(&pack_dir).map_err(|e| ConvertError::io(&pack_dir, e))?,
            );
        }

        let hash = source.object_format;
        let packs = idx_paths
            .iter()
            .map(|idx_path| Pack::open(idx_path, hash))
            .collect::<Result<Vec<_>, _>>()?;
        let table = match hash {
            HashKind::Sha1 => ObjectTable::new(list::<20>(&packs, &object_dirs, hash)?),
            HashKind::Sha256 => ObjectTable::new(list::<32>(&packs, &object_dirs, hash)?),
        };
        Ok((
            Inventory {
                packs,
                pack_paths: idx_paths,
                object_dirs,
                generation: NEXT_GENERATION.fetch_add(1, Ordering::Relaxed),
            },
            table,
        ))
    }

    /// Reads object `i` of the table in full, whichever store holds it.
    pub fn read(
        &self,
        table: &ObjectTable,
        i: u32,
        cache: &mut DeltaCache,
        out: &mut Vec<u8>,
    ) -> Result<ObjectKind, ConvertError> {
        match table.location(i) {
            Location::Packed { pack, offset } => {
                let external = |id: &ObjectId| self.read_external(table, id);
                // The cache is keyed by offset: it must hold this pack only.
                cache.claim((self.generation << 32) | u64::from(pack));
                let kind = self.packs[pack as usize].read_at(offset, cache, &external, out)?;
                // Reads come in pack order (see schedule.rs), so the object
                // just read is likely the base of the next one: keep it.
                // (`read_at` caches only the bases it walked through.)
                if out.len() <= CACHE_OBJECT_LIMIT {
                    cache.insert(offset, kind, out.clone());
                }
                Ok(kind)
            }
            Location::Loose { dir } => {
                let (kind, body) =
                    loose::read_loose(&self.object_dirs[dir as usize], &table.source_id(i))?;
                *out = body;
                Ok(kind)
            }
        }
    }

    /// The body of object `i` if `cache` holds it, without reading
    /// anything.
    pub fn cached<'c>(
        &self,
        table: &ObjectTable,
        i: u32,
        cache: &'c mut DeltaCache,
    ) -> Option<&'c [u8]> {
        let Location::Packed { pack, offset } = table.location(i) else {
            return None;
        };
        if !cache.is_owned_by((self.generation << 32) | u64::from(pack)) {
            return None;
        }
        cache.get(offset).map(|(_, body)| body)
    }

    /// Where SOURCE stores object `i` of the table, for messages: its pack
    /// and offset, or its loose file.
    pub fn stored_in(&self, table: &ObjectTable, i: u32) -> String {
        match table.location(i) {
            Location::Packed { pack, offset } => format!(
                "{} at offset {offset}",
                self.pack_paths[pack as usize]
                    .with_extension("pack")
                    .display()
            ),
            Location::Loose { dir } => self
                .loose_path(dir, &table.source_id(i))
                .display()
                .to_string(),
        }
    }

    /// The file of loose object `id` in object directory number `dir`.
    pub fn loose_path(&self, dir: u32, id: &ObjectId) -> PathBuf {
        loose::loose_path(&self.object_dirs[dir as usize], id)
    }

    /// A REF_DELTA base stored outside the pack that needs it (another pack,
    /// or a loose object). git does not write such packs into a repository,
    /// but it reads them, so we do too.
    pub fn read_external(
        &self,
        table: &ObjectTable,
        id: &ObjectId,
    ) -> Option<(ObjectKind, Vec<u8>)> {
        let i = table.find(id)?;
        let mut cache = DeltaCache::new(16 << 20);
        let mut out = Vec::new();
        let kind = self.read(table, i, &mut cache, &mut out).ok()?;
        Some((kind, out))
    }
}

/// Every object of `packs` and of the loose objects of `object_dirs` (in
/// that order), by raw name: `N` bytes, `hash`'s width.
fn list<const N: usize>(
    packs: &[Pack],
    object_dirs: &[PathBuf],
    hash: HashKind,
) -> Result<Vec<([u8; N], Location)>, ConvertError> {
    let raw = |id: ObjectId| -> [u8; N] {
        id.as_bytes()
            .try_into()
            .expect("an index or directory of `hash` yields its names")
    };
    let mut objects = Vec::with_capacity(packs.iter().map(|p| p.idx.num_objects() as usize).sum());
    for (pack_no, pack) in packs.iter().enumerate() {
        let idx = &pack.idx;
        for i in 0..idx.num_objects() {
            let location = Location::Packed {
                pack: pack_no as u32,
                offset: idx.offset_at(i),
            };
            objects.push((raw(idx.oid_at(i)), location));
        }
    }
    for (dir, path) in object_dirs.iter().enumerate() {
        for id in loose::list_loose(path, hash)? {
            objects.push((raw(id), Location::Loose { dir: dir as u32 }));
        }
    }
    Ok(objects)
}
