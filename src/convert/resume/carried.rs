//! Objects an interrupted run wrote into segments that are not folded
//! yet. A resumed run plans them again with everything else, so that the
//! passes cut the same chunks, fill the same search windows and choose the
//! same deltas as a run that was never interrupted, and the folded pack is
//! byte for byte the same; it only skips writing them a second time.

use std::collections::HashSet;
use std::path::Path;

use crate::convert::error::ConvertError;
use crate::convert::error::DestState;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::ObjectId;
use crate::idmap::IdMap;
use crate::pack::IndexFile;
use crate::repo::dest_layout;

/// Marks every mapped object that a pending segment of DEST holds as
/// carried; returns how many there are.
pub fn mark_carried(
    dest: &Path,
    map: &IdMap,
    table: &mut ObjectTable,
) -> Result<u64, ConvertError> {
    let own = |table: &ObjectTable, i: u32| table.is_mapped(i) && !table.is_shared(i);
    if map.folded_packs()?.is_empty() {
        // No conversion of DEST finished yet: every row it has was
        // committed with a segment that is still pending.
        return Ok(mark(table, |table, i| own(table, i)));
    }
    // An interrupted incremental run: only what its pending segments hold
    // (beside the finished runs' packs) is carried.
    let pack_dir = dest_layout::pack_dir(dest);
    let mut held: HashSet<ObjectId> = HashSet::new();
    let dest_hash = table.direction().dest();
    for stem in map.pending_segments()? {
        let path = pack_dir.join(format!("{stem}.idx"));
        let idx = IndexFile::open(&path, dest_hash).map_err(|e| DestState::Damaged {
            path: dest.to_path_buf(),
            reason: format!("segment {stem} cannot be read back ({e})"),
        })?;
        held.reserve(idx.num_objects() as usize);
        held.extend((0..idx.num_objects()).map(|i| idx.oid_at(i)));
    }
    if held.is_empty() {
        return Ok(0);
    }
    Ok(mark(table, |table, i| {
        own(table, i) && table.dest_id(i).is_some_and(|id| held.contains(&id))
    }))
}

/// Marks the objects `carried` picks; returns how many.
fn mark(table: &mut ObjectTable, carried: impl Fn(&ObjectTable, u32) -> bool) -> u64 {
    let picked: Vec<u32> = table.indices().filter(|&i| carried(table, i)).collect();
    for &i in &picked {
        table.set_carried(i);
    }
    picked.len() as u64
}
