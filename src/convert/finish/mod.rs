//! The finish step: the segments a conversion wrote (this run's, and those
//! of interrupted runs before it) become one pack, in SOURCE's storage
//! order, every delta kept (`pack::fold_packs`); then the segments
//! are deleted.
//!
//! Segments stay the unit of checkpointing while the passes run; they may
//! be thin, because nothing reads them but this step. It is resumable
//! like every other phase: the pack is renamed into place, then the
//! journal records it and marks the segments folded, in one transaction,
//! then the segment files are deleted. Killed before the transaction, the
//! next run deletes the new pack as a leftover and folds again (the same
//! inputs give the same pack); killed after it, the next run deletes the
//! segments as leftovers.
//!
//! Temporary disk space: the new pack, its `.idx` and `.rev` beside the
//! segments, so DEST briefly holds the converted objects twice.

pub mod known_edges;
mod order;
pub mod reach_indexes;
pub mod repack;

use std::path::Path;

use rayon::prelude::*;

use crate::convert::error::ConvertError;
use crate::convert::error::DestState;
use crate::convert::phase;
use crate::convert::source_objects::by_dest_name::ByDestName;
use crate::hash::HashKind;
use crate::idmap::{IdMap, RunId};
use crate::pack::Pack;
use crate::pack::{OrderKey, PackWriteError, fold_packs};
use crate::pipeline::StopPoints;
use crate::progress::Progress;
use crate::repo::dest_layout;

/// The pack a finish step wrote.
#[derive(Debug, Clone)]
pub struct Folded {
    /// Its size, trailer included.
    pub bytes: u64,
}

/// Folds every pending segment of DEST into one pack, if there is any.
pub fn fold_segments(
    dest: &Path,
    map: &mut IdMap,
    run: RunId,
    names: &ByDestName<'_>,
    stops: &StopPoints,
    progress: &dyn Progress,
) -> Result<Option<Folded>, ConvertError> {
    let segments = map.pending_segments()?;
    if segments.is_empty() {
        return Ok(None);
    }
    let pack_dir = dest_layout::pack_dir(dest);
    progress.start("checking segments", None);
    let packs = open_checked(dest, &pack_dir, &segments, map.direction()?.dest())?;
    progress.finish();
    let inputs = FoldInputs {
        packs,
        key: &|_, _, id| order::storage_key(names, id),
        replacing: Replacing::Segments(&segments),
    };
    Ok(Some(fold_into_one(
        dest, map, run, inputs, stops, progress,
    )?))
}

/// What a fold reads and in what order.
struct FoldInputs<'a> {
    packs: Vec<Pack>,
    key: &'a OrderKey<'a>,
    replacing: Replacing<'a>,
}

/// What the folded pack stands for in the journal.
enum Replacing<'a> {
    /// Segments whose objects it now holds.
    Segments(&'a [String]),
    /// Folded packs it replaces.
    Packs(&'a [String]),
}

/// Writes every entry of the input packs into one pack of DEST in the
/// inputs' order, records it in the journal in place of what it replaces,
/// then deletes the files those name. The pack is renamed into place
/// before the journal knows it, and the old files are deleted after, so a
/// kill between steps leaves leftovers the next run deletes, never a
/// missing object.
fn fold_into_one(
    dest: &Path,
    map: &mut IdMap,
    run: RunId,
    inputs: FoldInputs<'_>,
    stops: &StopPoints,
    progress: &dyn Progress,
) -> Result<Folded, ConvertError> {
    let pack_dir = dest_layout::pack_dir(dest);
    let written = fold_packs(
        &inputs.packs,
        &pack_dir,
        map.direction()?.dest(),
        inputs.key,
        progress,
    )
    .map_err(|e| match e {
        damaged @ PackWriteError::DamagedEntry { .. } => DestState::Damaged {
            path: dest.to_path_buf(),
            reason: damaged.to_string(),
        }
        .into(),
        other => ConvertError::from(other),
    })?;
    drop(inputs.packs);
    stops.kill_point(phase::FOLDED);
    let stem = written.stem();
    let objects = u64::from(written.num_objects);
    // A lone input with no delta to rewrite folds into itself: same bytes,
    // same name, not to be deleted.
    let others = |names: &[String]| -> Vec<String> {
        names.iter().filter(|n| **n != stem).cloned().collect()
    };
    let gone = match inputs.replacing {
        Replacing::Segments(segments) => {
            map.record_fold(run, &stem, objects, written.pack_size, segments, &[])?;
            others(segments)
        }
        Replacing::Packs(packs) => {
            let replaced = others(packs);
            map.record_fold(run, &stem, objects, written.pack_size, &[], &replaced)?;
            replaced
        }
    };
    stops.kill_point(phase::FOLD_RECORDED);
    remove_packs(&pack_dir, &gone)?;
    Ok(Folded {
        bytes: written.pack_size,
    })
}

/// Opens the packs `stems` of `pack_dir` (named in `hash`, DEST's) and
/// checks each one's index checksum (the fold checks every entry against
/// the CRC32 its index records as it copies it): a segment damaged since
/// it was written is refused by name.
fn open_checked(
    dest: &Path,
    pack_dir: &Path,
    stems: &[String],
    hash: HashKind,
) -> Result<Vec<Pack>, ConvertError> {
    stems
        .par_iter()
        .map(|stem| {
            let idx = pack_dir.join(format!("{stem}.idx"));
            let pack = open_pack(dest, &idx, hash)?;
            pack.idx
                .verify_checksum()
                .map_err(|e| damaged(dest, &idx, &e))?;
            pack.data.will_need();
            Ok(pack)
        })
        .collect()
}

/// Opens a pack of DEST, named in `hash`; one that cannot be read is DEST
/// damaged.
fn open_pack(dest: &Path, idx: &Path, hash: HashKind) -> Result<Pack, ConvertError> {
    Pack::open(idx, hash).map_err(|e| damaged(dest, idx, &e))
}

/// DEST's pack `idx` cannot be read back, for `why`.
fn damaged(dest: &Path, idx: &Path, why: &dyn std::fmt::Display) -> ConvertError {
    let name = idx.file_stem().unwrap_or_default().to_string_lossy();
    DestState::Damaged {
        path: dest.to_path_buf(),
        reason: format!("pack {name} cannot be read back ({why})"),
    }
    .into()
}

/// Deletes packs (`.idx` first: git finds a pack by its index).
fn remove_packs(pack_dir: &Path, stems: &[String]) -> Result<(), ConvertError> {
    for stem in stems {
        crate::pack::remove_pack(&pack_dir.join(format!("{stem}.idx")))?;
    }
    crate::durable::sync_dir(pack_dir)?;
    Ok(())
}
