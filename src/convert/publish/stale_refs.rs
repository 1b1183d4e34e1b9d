//! Bringing DEST's refs in line with SOURCE's snapshot on a later run:
//! after the translated refs are written, every ref, reflog and pseudo-ref
//! file that the snapshot did not produce is removed (a branch deleted in
//! SOURCE disappears from DEST, with its reflog).

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::convert::dest::is_empty_dir;
use crate::convert::error::ConvertError;
use crate::refs::PSEUDO_REFS;
use crate::repo::dest_layout;

/// Removes the files below `refs/` and `logs/`, `packed-refs` and the
/// pseudo-refs of `dest` that are not in `written`.
pub fn prune_stale_refs(dest: &Path, written: &[PathBuf]) -> Result<(), ConvertError> {
    let keep: HashSet<&Path> = written.iter().map(PathBuf::as_path).collect();
    let kept_dirs = dest_layout::kept_ref_dirs(dest);
    for root in [dest_layout::refs_dir(dest), dest_layout::logs_dir(dest)] {
        if root.is_dir() {
            prune_dir(&root, &keep, &kept_dirs)?;
        }
    }
    let mut singles: Vec<PathBuf> = PSEUDO_REFS
        .iter()
        .map(|name| dest_layout::pseudo_ref(dest, name))
        .collect();
    singles.push(dest_layout::packed_refs(dest));
    for path in singles {
        if !keep.contains(path.as_path()) && path.symlink_metadata().is_ok() {
            fs::remove_file(&path).map_err(|e| ConvertError::io(&path, e))?;
        }
    }
    Ok(())
}

/// Removes unwanted files below `dir`, then directories left empty.
fn prune_dir(dir: &Path, keep: &HashSet<&Path>, kept_dirs: &[PathBuf]) -> Result<(), ConvertError> {
    for entry in fs::read_dir(dir).map_err(|e| ConvertError::io(dir, e))? {
        let entry = entry.map_err(|e| ConvertError::io(dir, e))?;
        let path = entry.path();
        let is_dir = entry
            .file_type()
            .map_err(|e| ConvertError::io(&path, e))?
            .is_dir();
        if is_dir {
            prune_dir(&path, keep, kept_dirs)?;
            let wanted = kept_dirs.contains(&path);
            if !wanted && is_empty_dir(&path)? {
                fs::remove_dir(&path).map_err(|e| ConvertError::io(&path, e))?;
            }
        } else if !keep.contains(path.as_path()) {
            fs::remove_file(&path).map_err(|e| ConvertError::io(&path, e))?;
        }
    }
    Ok(())
}
