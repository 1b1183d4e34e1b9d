//! The delta chain length each object of the map pass was written with,
//! by table index: what lets a later wave make a delta against an object
//! of an earlier one without breaking `--depth`.
//!
//! The window search decides depths only for what its windows hold; an
//! object from an earlier wave (the previous version of a directory whose
//! height changed, the source base across a restart group) is outside
//! every window, and a delta against it is only sound if its own chain is
//! known. Two bytes an object, set once a chunk's chains are final.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU16, Ordering};

use crate::convert::error::ConvertError;
use crate::convert::error::DestState;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::ObjectId;
use crate::idmap::IdMap;
use crate::object::ObjectKind;
use crate::pack::{EntryKind, IndexFile, PackFile};
use crate::repo::dest_layout;

/// Not written yet (or not by the map pass).
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

    /// Sets the chain length of every carried tree, commit and tag of
    /// `table` from `written` ([`written_depths`]).
    pub fn set_carried(&self, table: &ObjectTable, written: &HashMap<ObjectId, u32>) {
        for at in table.indices().filter(|&at| table.is_carried(at)) {
            if let Some(name) = table.dest_id(at)
                && let Some(&depth) = written.get(&name)
            {
                self.set(at, depth);
            }
        }
    }

    /// The chain length object `at` was written with, if it is known.
    pub fn get(&self, at: u32) -> Option<u32> {
        match self.0.get(at as usize)?.load(Ordering::Relaxed) {
            UNKNOWN => None,
            depth => Some(u32::from(depth)),
        }
    }
}

/// The chain length of every tree, commit and tag the pending segments of
/// DEST hold (an interrupted run wrote them), by DEST name: a resumed
/// run prepares again only the restart group it resumes in, and learns
/// the rest from the segments, so that it offers the same bases as a run
/// that was never interrupted. Within the map pass's sequence a base is
/// always written before its delta, so one pass in segment order resolves
/// every chain; blob segments are skipped (their first whole entry says
/// which sequence a segment belongs to).
pub fn written_depths(dest: &Path, map: &IdMap) -> Result<HashMap<ObjectId, u32>, ConvertError> {
    let pack_dir = dest_layout::pack_dir(dest);
    let hash = map.direction()?.dest();
    let mut depths: HashMap<ObjectId, u32> = HashMap::new();
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
                EntryKind::Base(ObjectKind::Blob) => break,
                EntryKind::Base(_) => 0,
                EntryKind::RefDelta { base_id } => match depths.get(&base_id) {
                    Some(&d) => d + 1,
                    // A blob delta (its segment starts with one): a blob
                    // segment, skipped.
                    None => break,
                },
                EntryKind::OfsDelta { .. } => {
                    return Err(damaged(&"a segment holds a delta it cannot name").into());
                }
            };
            depths.insert(name, depth);
        }
    }
    Ok(depths)
}
