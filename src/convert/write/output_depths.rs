//! The delta chain length each object was written with, by table index:
//! what lets a later wave make a delta against an object of an earlier one
//! without breaking `--depth`, and what a resumed run's search starts from
//! (`search_tail.rs`).
//!
//! The window search decides depths only for what its windows hold; an
//! object from an earlier wave (the previous version of a directory whose
//! height changed, the source base of an object) is outside every window,
//! and a delta against it is only sound if its own chain is known. Two
//! bytes an object, set once a chunk's chains are final, or read back from
//! the segments an interrupted run wrote.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU16, Ordering};

use crate::convert::error::ConvertError;
use crate::convert::error::DestState;
use crate::convert::source_objects::by_dest_name::ByDestName;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::ObjectId;
use crate::idmap::IdMap;
use crate::pack::{EntryKind, IndexFile, PackFile};
use crate::repo::dest_layout;

/// Not written yet (or not known).
const UNKNOWN: u16 = u16::MAX;

pub struct OutputDepths(Vec<AtomicU16>);

impl OutputDepths {
    /// Room for `objects` table indexes, none known.
    pub fn new(objects: usize) -> Self {
        OutputDepths((0..objects).map(|_| AtomicU16::new(UNKNOWN)).collect())
    }

    /// Object `at` is written with a chain `depth` long (0: whole).
    pub fn set(&self, at: u32, depth: u32) {
        let depth = u16::try_from(depth).unwrap_or(UNKNOWN - 1).min(UNKNOWN - 1);
        self.0[at as usize].store(depth, Ordering::Relaxed);
    }

    /// Sets the chain length of every object of `table` that the pending
    /// segments of DEST hold (an interrupted run wrote them), read back
    /// from the segments ([`read_written`]).
    pub fn set_written(
        &self,
        dest: &Path,
        map: &IdMap,
        table: &ObjectTable,
    ) -> Result<(), ConvertError> {
        let mut book = ByTable {
            names: ByDestName::new(table),
            depths: self,
        };
        read_written(dest, map, &mut book)
    }

    /// The chain length object `at` was written with, if it is known.
    pub fn get(&self, at: u32) -> Option<u32> {
        match self.0.get(at as usize)?.load(Ordering::Relaxed) {
            UNKNOWN => None,
            depth => Some(u32::from(depth)),
        }
    }
}

/// Where [`read_written`] looks up and records chain lengths, by name.
trait DepthBook {
    fn depth_of(&self, name: &ObjectId) -> Option<u32>;
    fn record(&mut self, name: ObjectId, depth: u32);
}

/// The table's objects, by their names.
struct ByTable<'t> {
    names: ByDestName<'t>,
    depths: &'t OutputDepths,
}

impl DepthBook for ByTable<'_> {
    fn depth_of(&self, name: &ObjectId) -> Option<u32> {
        let at = self.names.find(name)?;
        self.depths.get(at)
    }

    fn record(&mut self, name: ObjectId, depth: u32) {
        if let Some(at) = self.names.find(&name) {
            self.depths.set(at, depth);
        }
    }
}

impl DepthBook for HashMap<ObjectId, u32> {
    fn depth_of(&self, name: &ObjectId) -> Option<u32> {
        self.get(name).copied()
    }

    fn record(&mut self, name: ObjectId, depth: u32) {
        self.insert(name, depth);
    }
}

/// The chain length of every object the pending segments of DEST hold (an
/// interrupted run wrote them), by DEST name.
pub fn written_depths(dest: &Path, map: &IdMap) -> Result<HashMap<ObjectId, u32>, ConvertError> {
    let mut depths = HashMap::new();
    read_written(dest, map, &mut depths)?;
    Ok(depths)
}

/// Reads back the chain length of every object the pending segments of
/// DEST hold into `book`, from their entry headers: one pass in segment
/// order resolves every chain a search made, as a searched base is always
/// written before its delta, in its own sequence. (A blob delta reused
/// from SOURCE's pairing, with `--window 0`, may name a later base: its
/// length stays unknown, and is never asked for: without a search no
/// chunk starts from the objects before it.)
fn read_written(dest: &Path, map: &IdMap, book: &mut impl DepthBook) -> Result<(), ConvertError> {
    let pack_dir = dest_layout::pack_dir(dest);
    let hash = map.direction()?.dest();
    for stem in map.pending_segments()? {
        let damaged = |e: &dyn std::fmt::Display| DestState::Damaged {
            path: dest.to_path_buf(),
            reason: format!("segment {stem} cannot be read back ({e})"),
        };
        let idx = IndexFile::open(&pack_dir.join(format!("{stem}.idx")), hash)
            .map_err(|e| damaged(&e))?;
        let pack = PackFile::open(&pack_dir.join(format!("{stem}.pack")), hash)
            .map_err(|e| damaged(&e))?;
        let mut entries: Vec<(u64, ObjectId)> = (0..idx.num_objects())
            .map(|i| (idx.offset_at(i), idx.oid_at(i)))
            .collect();
        entries.sort_unstable();
        for (offset, name) in entries {
            let entry = pack.entry_at(offset).map_err(|e| damaged(&e))?;
            let depth = match entry.kind {
                EntryKind::Base(_) => Some(0),
                EntryKind::RefDelta { base_id } => book.depth_of(&base_id).map(|d| d + 1),
                EntryKind::OfsDelta { .. } => {
                    return Err(damaged(&"a segment holds a delta it cannot name").into());
                }
            };
            if let Some(depth) = depth {
                book.record(name, depth);
            }
        }
    }
    Ok(())
}
