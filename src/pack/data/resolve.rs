//! A pack as a whole (index + data) and random access to its objects,
//! resolving delta chains (git's `unpack_entry()` in packfile.c: walk down
//! to a base iteratively, then apply the deltas back up, caching bases).

use std::path::Path;
use std::sync::OnceLock;

use super::cache::DeltaCache;
use super::entry::EntryKind;
use super::file::PackFile;
use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;
use crate::pack::delta::apply::apply_delta;
use crate::pack::error::PackError;
use crate::pack::index::read::IndexFile;

/// Longest delta chain we follow. git's pack-objects caps `--depth` at
/// 4095; anything deeper is corrupt or a REF_DELTA cycle.
pub const MAX_CHAIN_DEPTH: usize = 10_000;

/// Looks up a REF_DELTA base outside this pack (another pack, a loose object).
pub type ExternalBase<'a> = dyn Fn(&ObjectId) -> Option<(ObjectKind, Vec<u8>)> + 'a;

/// Entries as (offset, position in the idx), sorted by offset; or the
/// offset two entries share.
type EntryOrder = Result<Box<[(u64, u32)]>, u64>;

/// An index and the pack data it describes.
#[derive(Debug)]
pub struct Pack {
    pub idx: IndexFile,
    pub data: PackFile,
    /// [`Pack::entries_by_offset`], made on first use.
    by_offset: OnceLock<EntryOrder>,
}

impl Pack {
    /// Opens `pack-X.idx` and the `pack-X.pack` next to it, and checks they
    /// belong together: same object count, the index's copy of the pack
    /// trailer equal to the pack's trailer.
    pub fn open(idx_path: &Path, hash: HashKind) -> Result<Self, PackError> {
        let idx = IndexFile::open(idx_path, hash)?;
        let data = PackFile::open(&idx_path.with_extension("pack"), hash)?;
        let mismatch = |reason: String| PackError::IdxPackMismatch {
            idx: idx.path().to_owned(),
            pack: data.path().to_owned(),
            reason,
        };
        if idx.num_objects() != data.num_objects() {
            return Err(mismatch(format!(
                "index has {} objects, pack has {}",
                idx.num_objects(),
                data.num_objects()
            )));
        }
        if idx.pack_checksum() != data.checksum() {
            return Err(mismatch(
                "the pack's trailing checksum differs from the copy in the index \
                 (the pack is truncated or damaged, or the index is from another pack)"
                    .into(),
            ));
        }
        Ok(Pack {
            idx,
            data,
            by_offset: OnceLock::new(),
        })
    }

    /// Every entry as (offset, position in the idx), sorted by offset:
    /// where an entry's bytes end, which entry a base offset names. The
    /// pack's checks, its traversal and the writing passes all need it, so
    /// it is made once (16 bytes an object) and kept while the pack is
    /// open: three copies of their own, one freed before the next was made,
    /// left holes of that size in the allocator's heap that the rest of a
    /// small run did not fill (110k objects: two of 1.6 MB each, free at
    /// the peak). Refused when two entries share an offset.
    pub fn entries_by_offset(&self) -> Result<&[(u64, u32)], PackError> {
        // Sorted on one thread: a parallel sort here could steal a job
        // that asks for the same order and wait on itself.
        let order = self.by_offset.get_or_init(|| {
            let mut order: Box<[(u64, u32)]> = (0..self.idx.num_objects())
                .map(|i| (self.idx.offset_at(i), i))
                .collect();
            order.sort_unstable();
            match order.windows(2).find(|w| w[0].0 == w[1].0) {
                Some(w) => Err(w[0].0),
                None => Ok(order),
            }
        });
        match order {
            Ok(order) => Ok(order),
            Err(offset) => Err(PackError::DuplicateOffset {
                path: self.data.path().to_owned(),
                offset: *offset,
            }),
        }
    }

    /// The offset of `id` in this pack.
    pub fn find(&self, id: &ObjectId) -> Option<u64> {
        self.idx.lookup(id).map(|i| self.idx.offset_at(i))
    }

    /// Random access: the full object at `offset` into `out`, resolving
    /// delta chains of any depth up to [`MAX_CHAIN_DEPTH`] iteratively.
    /// Every object used as a base on the way is offered to `cache`.
    /// REF_DELTA bases are looked up in this pack first, then via `external`.
    pub fn read_at(
        &self,
        offset: u64,
        cache: &mut DeltaCache,
        external: &ExternalBase<'_>,
        out: &mut Vec<u8>,
    ) -> Result<ObjectKind, PackError> {
        // Walk down to something whole: a cached object, a base entry, or
        // an external base. `chain` holds the deltas, top first.
        let mut chain = Vec::new();
        let mut at = offset;
        let (kind, mut current, mut current_offset) = loop {
            if chain.len() > MAX_CHAIN_DEPTH {
                return Err(PackError::ChainTooDeep {
                    path: self.data.path().to_owned(),
                    offset,
                    max_depth: MAX_CHAIN_DEPTH,
                });
            }
            if let Some((kind, body)) = cache.get(at) {
                if chain.is_empty() {
                    out.clear();
                    out.extend_from_slice(body);
                    return Ok(kind);
                }
                break (kind, body.to_vec(), Some(at));
            }
            let entry = self.data.entry_at(at)?;
            match entry.kind {
                EntryKind::Base(kind) => {
                    if chain.is_empty() {
                        self.data.inflate(&entry, out)?;
                        return Ok(kind);
                    }
                    let mut body = Vec::new();
                    self.data.inflate(&entry, &mut body)?;
                    break (kind, body, Some(at));
                }
                EntryKind::OfsDelta { base_offset } => {
                    chain.push(entry);
                    at = base_offset;
                }
                EntryKind::RefDelta { base_id } => {
                    chain.push(entry);
                    if let Some(base_offset) = self.find(&base_id) {
                        at = base_offset;
                    } else if let Some((kind, body)) = external(&base_id) {
                        break (kind, body, None);
                    } else {
                        return Err(PackError::MissingBase {
                            path: self.data.path().to_owned(),
                            offset: entry.offset,
                            base: base_id,
                        });
                    }
                }
            }
        };
        // Apply the deltas back up; each intermediate result is a base.
        let mut delta = Vec::new();
        let mut next = Vec::new();
        for entry in chain.iter().rev() {
            self.data.inflate(entry, &mut delta)?;
            apply_delta(&current, &delta, &mut next).map_err(|source| PackError::Delta {
                path: self.data.path().to_owned(),
                offset: entry.offset,
                source,
            })?;
            let base = std::mem::replace(&mut current, std::mem::take(&mut next));
            if let Some(base_offset) = current_offset {
                cache.insert(base_offset, kind, base);
            }
            current_offset = Some(entry.offset);
        }
        std::mem::swap(out, &mut current);
        Ok(kind)
    }
}
