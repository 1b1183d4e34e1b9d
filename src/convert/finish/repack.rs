//! `git-rehash repack DEST`: the packs of a finished DEST (its first
//! conversion's and one per incremental run since) folded into one, every
//! entry copied as it is stored, in the order of the packs (oldest first)
//! and their offsets; then its bitmap and the commit-graph are written.
//!
//! Like the finish step of a conversion, it is safe to kill: the new pack
//! is renamed into place before the journal records it, and the old packs
//! (with the bitmap of the first) are deleted last, so
//! DEST is a complete repository at every moment and a second run ends the
//! work of a killed one.

use std::path::Path;

use super::reach_indexes;
use super::{FoldInputs, Replacing, fold_into_one, open_checked};
use crate::convert::dest::Dest;
use crate::convert::dest::leftovers::clean_leftovers;
use crate::convert::error::ConvertError;
use crate::convert::error::DestState;
use crate::convert::outcome::ServingIndexes;
use crate::idmap::{IdMap, RunId};
use crate::pipeline::StopPoints;
use crate::progress::Progress;
use crate::refs;
use crate::repo::dest_layout;

/// What a repack did.
#[derive(Debug, Clone, Default)]
pub struct Repacked {
    /// Packs DEST had before; 1 (or 0) means there was nothing to fold.
    pub packs_before: usize,
    /// The size of DEST's one pack now.
    pub pack_size: u64,
    pub serving: ServingIndexes,
}

/// Folds every pack of the finished conversion in `dest` into one.
pub fn repack(dest: &Path, progress: &dyn Progress) -> Result<Repacked, ConvertError> {
    let map_path = dest_layout::map_db(dest);
    if !map_path.is_file() {
        return Err(DestState::NotAConversion {
            path: dest.to_path_buf(),
            reason: format!("it has no {}", map_path.display()),
        }
        .into());
    }
    let dest = Dest::open(dest)?;
    let mut map = IdMap::open_rw(&map_path)?;
    if map.meta("state")?.as_deref() != Some("complete") || !map.pending_segments()?.is_empty() {
        return Err(DestState::Unfinished {
            path: dest.path.clone(),
        }
        .into());
    }
    // What a killed repack left: the packs its fold replaced.
    clean_leftovers(&dest, &map)?;
    let packs = map.folded_packs()?;
    let pack_dir = dest.pack_dir();
    let hash = map.direction()?.dest();
    let mut outcome = Repacked {
        packs_before: packs.len(),
        ..Default::default()
    };
    if packs.len() > 1 {
        let inputs = FoldInputs {
            packs: open_checked(&dest.path, &pack_dir, &packs, hash)?,
            // Oldest pack first, each in its own order: the first
            // conversion keeps SOURCE's layout, and the newest objects
            // come last.
            key: &|pack, offset, _| ((pack as u64) << 40) | offset,
            replacing: Replacing::Packs(&packs),
        };
        let run = RunId(map.last_finished_run()?.unwrap_or(0));
        let stops = StopPoints::new(None);
        outcome.pack_size =
            fold_into_one(&dest.path, &mut map, run, inputs, &stops, progress)?.bytes;
    } else if let Some(only) = packs.first() {
        let path = pack_dir.join(format!("{only}.pack"));
        outcome.pack_size = std::fs::metadata(&path)
            .map_err(|e| ConvertError::io(&path, e))?
            .len();
    }
    let refs = refs::read_source_refs(&dest.path, hash)?;
    let tips: Vec<_> = refs.tip_ids().collect();
    if let Some(idx) = reach_indexes::target(&dest.path, &map)? {
        outcome.serving = Some(reach_indexes::write(
            &dest.path,
            (&idx, hash),
            &tips,
            None,
            progress,
        )?);
    }
    Ok(outcome)
}
