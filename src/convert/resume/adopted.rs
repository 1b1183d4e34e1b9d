//! Segments an interrupted run journaled as waiting (`idmap/waiting.rs`):
//! trees, commits and tags written while blobs they name were still being
//! written. Their objects are durably in DEST, so this run adopts them as
//! written (carried, `carried.rs`: planned again, not written again); their
//! rows join the map once this run's blobs have all committed
//! (`segments/commit_order.rs`).
//!
//! A waiting segment is adopted only if SOURCE still has every object in
//! it: then SOURCE has what they name too, and this run writes whatever of
//! that has no row yet. Should SOURCE have lost one (a push or a gc
//! between the runs), that segment and every later waiting one (whose
//! objects may name its objects) are dropped from the journal, and their
//! objects still in SOURCE are converted again.

use crate::convert::error::ConvertError;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::ObjectId;
use crate::idmap::IdMap;
use crate::object::ObjectKind;

/// Marks the objects of every waiting segment SOURCE still holds whole as
/// converted (as [`super::load_map`] marks rows), dropping the rest from
/// the journal; returns how many objects it adopted.
pub fn adopt_waiting(map: &mut IdMap, table: &mut ObjectTable) -> Result<u64, ConvertError> {
    let segments = map.waiting_segments()?;
    let mut adopted = 0u64;
    for (k, stem) in segments.iter().enumerate() {
        let mut objects: Vec<(u32, ObjectKind, ObjectId)> = Vec::new();
        let mut whole = true;
        let direction = table.direction();
        map.for_each_waiting_row(stem, |row| {
            let (source, dest) = direction.split(row.sha1, row.sha256);
            match table.find(&source) {
                Some(at) => objects.push((at, row.kind, dest)),
                None => whole = false,
            }
        })?;
        if !whole {
            map.discard_waiting(&segments[k..])?;
            break;
        }
        for (at, kind, name) in objects {
            table.set_mapped(at, kind, name);
            adopted += 1;
        }
    }
    Ok(adopted)
}
