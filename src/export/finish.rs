//! The end of an export's object writing, and the start of the next run:
//! every segment in `rehash-export/segments/` (this run's, and those of
//! interrupted runs) is folded into one pack (`pack::fold_packs`:
//! entries copied as they are stored, bases before their deltas, every
//! delta an OFS_DELTA) in `rehash-export/fold/`, which is then moved into
//! MIRROR's `objects/pack/` (`.pack`, `.rev`, then `.idx`: git finds a
//! pack by its index, so it never sees one without its data); then the
//! segments are deleted. MIRROR's refs are written only after that, so no
//! ref ever names an object MIRROR lacks.
//!
//! A kill anywhere leaves a state the next run finishes ([`recover`]): a
//! fold whose index was written is moved in, an unfinished one deleted
//! (its segments are still there), and segments whose every object
//! MIRROR's packs now hold are deleted. Temporary files in the export's
//! own directories are removed; MIRROR's `objects/` never holds one of
//! ours, since the fold is written beside it.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::error::ExportError;
use super::mirror_objects::ObjectNames;
use crate::durable::{self, PathError};
use crate::hash::{HashKind, ObjectId};
use crate::pack::{Pack, list_packs};
use crate::pack::{PackOutcome, fold_packs};
use crate::pipeline::StopPoints;
use crate::progress::Progress;
use crate::repo::mirror_layout;

/// The files of one pack, in the order they are moved into place.
const PACK_FILES: [&str; 3] = ["pack", "rev", "idx"];

/// Finishes what an interrupted export left in MIRROR.
pub fn recover(mirror: &Path) -> Result<(), ExportError> {
    let fold_dir = mirror_layout::fold_dir(mirror);
    let pack_dir = mirror_layout::pack_dir(mirror);
    for (stem, files) in stems(&fold_dir)? {
        if files.iter().any(|f| f == "idx") {
            move_in(&fold_dir, &pack_dir, &stem)?;
        } else {
            remove_files(&fold_dir, &stem, &files)?;
        }
    }
    let segments_dir = mirror_layout::segments_dir(mirror);
    // A segment without its index was cut short while it was renamed in:
    // not a checkpoint, its objects are written again.
    for (stem, files) in stems(&segments_dir)? {
        if !files.iter().any(|f| f == "idx") {
            remove_files(&segments_dir, &stem, &files)?;
        }
    }
    let has = ObjectNames::open(&pack_dir, Some(&mirror_layout::objects_dir(mirror)))?;
    let segments = ObjectNames::open(&segments_dir, None)?;
    let mut folded: Vec<PathBuf> = Vec::new();
    for idx in segments.index_paths() {
        let one = ObjectNames::open_one(idx)?;
        if one.packed_ids().all(|(_, id)| has.has(&id)) {
            folded.push(idx.to_path_buf());
        }
    }
    drop(segments);
    for idx in folded {
        crate::pack::remove_pack(&idx)?;
    }
    durable::sync_dir(&segments_dir)?;
    Ok(())
}

/// Folds every segment of MIRROR into one pack, moved into
/// `objects/pack/`; entries in the order `order` gives their SHA-1
/// (sorted pairs of a name and its place), others after them by name.
/// `None` when there is no segment.
pub fn fold(
    mirror: &Path,
    order: &[([u8; 20], u32)],
    stops: &StopPoints,
    progress: &dyn Progress,
) -> Result<Option<PackOutcome>, ExportError> {
    let segments_dir = mirror_layout::segments_dir(mirror);
    let indexes = list_packs(&segments_dir).map_err(PathError::at(&segments_dir))?;
    if indexes.is_empty() {
        return Ok(None);
    }
    let packs = indexes
        .par_iter()
        .map(|idx| {
            let pack = Pack::open(idx, HashKind::Sha1)?;
            pack.idx.verify_checksum()?;
            Ok(pack)
        })
        .collect::<Result<Vec<_>, crate::pack::PackError>>()
        .map_err(|e| damaged(&segments_dir, e))?;
    let key = |_: usize, _: u64, id: &ObjectId| match id {
        ObjectId::Sha1(raw) => order
            .binary_search_by(|(name, _)| name.cmp(raw))
            .map_or(u64::MAX, |i| u64::from(order[i].1)),
        ObjectId::Sha256(_) => u64::MAX,
    };
    let fold_dir = mirror_layout::fold_dir(mirror);
    let written = fold_packs(&packs, &fold_dir, HashKind::Sha1, &key, progress)?;
    drop(packs);
    stops.kill_point(super::phase::FOLDED);
    let pack_dir = mirror_layout::pack_dir(mirror);
    let stem = written.stem();
    move_in(&fold_dir, &pack_dir, &stem)?;
    stops.kill_point(super::phase::MOVED_IN);
    for idx in &indexes {
        crate::pack::remove_pack(idx)?;
    }
    durable::sync_dir(&segments_dir)?;
    Ok(Some(PackOutcome {
        pack_path: pack_dir.join(format!("{stem}.pack")),
        idx_path: pack_dir.join(format!("{stem}.idx")),
        rev_path: pack_dir.join(format!("{stem}.rev")),
        ..written
    }))
}

/// A segment that cannot be read back: the export's own files are
/// damaged; deleting them makes the next run write their objects again.
fn damaged(dir: &Path, e: crate::pack::PackError) -> ExportError {
    PathError::new(
        dir,
        std::io::Error::other(format!(
            "a segment of an earlier export cannot be read back ({e}); delete {} and run again",
            dir.display()
        )),
    )
    .into()
}

/// Moves the pack `stem` from `from` into `to`, its index last, then
/// makes both directories durable. Files already moved are skipped.
fn move_in(from: &Path, to: &Path, stem: &str) -> Result<(), ExportError> {
    for ext in PACK_FILES {
        let (src, dst) = (
            from.join(format!("{stem}.{ext}")),
            to.join(format!("{stem}.{ext}")),
        );
        match fs::rename(&src, &dst) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound && dst.exists() => {}
            Err(e) => return Err(PathError::new(&dst, e).into()),
        }
        if ext == "rev" {
            // Data first: the index, moved last, must find it durable.
            durable::sync_dir(to)?;
        }
    }
    durable::sync_dir(to)?;
    durable::sync_dir(from)?;
    Ok(())
}

/// The files of `dir` by stem (`pack-<hex>` -> its extensions); temporary
/// files (a write cut short) are deleted on the way.
fn stems(dir: &Path) -> Result<Vec<(String, Vec<String>)>, ExportError> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(PathError::new(dir, e).into()),
    };
    for entry in entries {
        let entry = entry.map_err(PathError::at(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("tmp_") {
            let path = entry.path();
            fs::remove_file(&path).map_err(PathError::at(&path))?;
            continue;
        }
        if let Some((stem, ext)) = name.rsplit_once('.') {
            match out.iter_mut().find(|(s, _)| s == stem) {
                Some((_, exts)) => exts.push(ext.to_string()),
                None => out.push((stem.to_string(), vec![ext.to_string()])),
            }
        }
    }
    Ok(out)
}

fn remove_files(dir: &Path, stem: &str, exts: &[String]) -> Result<(), ExportError> {
    for ext in exts {
        let path = dir.join(format!("{stem}.{ext}"));
        fs::remove_file(&path).map_err(PathError::at(&path))?;
    }
    Ok(())
}
