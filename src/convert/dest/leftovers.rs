//! What a run that stopped part-way left in DEST: removed before a later
//! run writes (temporary files, packs the journal does not name), or, with
//! `--force`, DEST itself.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use super::Dest;
use crate::convert::error::{ConvertError, DestState};
use crate::durable;
use crate::idmap::IdMap;
use crate::repo::dest_layout;

/// `--force`: deletes DEST when it is git-rehash's (a directory of
/// anything else is left alone, and refused later as not ours).
pub fn remove_for_force(path: &Path) -> Result<(), ConvertError> {
    if !dest_layout::rehash_dir(path).is_dir() {
        return Ok(());
    }
    let dest = Dest::open(path)?;
    // Holding the lock, so no other run is writing it.
    fs::remove_dir_all(&dest.path).map_err(|e| ConvertError::io(&dest.path, e))
}

/// Deletes what an interrupted run left in `objects/pack`: temporary files
/// and packs the journal does not name (renamed, but their rows never
/// committed: their objects have no rows and are written again). Checks
/// that every journaled pack is still there.
pub fn clean_leftovers(dest: &Dest, map: &IdMap) -> Result<(), ConvertError> {
    let journaled: HashSet<String> = map.live_packs()?.into_iter().collect();
    let dir = dest.pack_dir();
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .map_err(|e| ConvertError::io(&dir, e))?
        .collect::<Result<_, _>>()
        .map_err(|e| ConvertError::io(&dir, e))?;
    // `.idx` first: git finds packs by their index.
    entries.sort_by_key(|e| !e.file_name().to_string_lossy().ends_with(".idx"));
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let stem = name.split('.').next().unwrap_or_default();
        let stale =
            name.starts_with("tmp_") || (name.starts_with("pack-") && !journaled.contains(stem));
        if stale {
            let path = entry.path();
            fs::remove_file(&path).map_err(|e| ConvertError::io(&path, e))?;
        }
    }
    for stem in &journaled {
        for ext in ["pack", "idx"] {
            let path = dir.join(format!("{stem}.{ext}"));
            if !path.is_file() {
                return Err(DestState::Damaged {
                    path: dest.path.clone(),
                    reason: format!("{} is missing", path.display()),
                }
                .into());
            }
        }
    }
    for file in [
        dest_layout::head(&dest.path),
        dest_layout::config(&dest.path),
    ] {
        let _ = fs::remove_file(durable::temp_path(&file));
    }
    Ok(())
}
