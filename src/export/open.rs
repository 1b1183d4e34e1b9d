//! The two repositories of an export, opened and locked: DEST, the SHA-256
//! repository a finished `git-rehash convert` made (its objects and refs
//! are only read; its map gains pairs), and MIRROR, a SHA-1 repository.
//!
//! DEST is locked through the lock file `convert` holds (a conversion and
//! an export never write its map at once), MIRROR through one in the
//! export's own directory (`rehash-export/`), so two exports into one
//! MIRROR never share its segments.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use super::error::{ExportError, ExportRefusal};
use crate::durable::PathError;
use crate::gitconfig::GitConfig;
use crate::hash::HashKind;
use crate::idmap::IdMap;
use crate::refs::{RefSelection, RefStorage};
use crate::repo::{SourceRepo, dest_layout, mirror_layout};

/// DEST, locked, with its map open for the pairs the export records.
pub struct DestRepo {
    pub git_dir: PathBuf,
    pub map: IdMap,
    /// The conversion's `--strict-headers`: the translation back follows it.
    pub strict_headers: bool,
    /// The refs the conversion carried (`--refs`, `--exclude-refs`): the
    /// export touches only those of MIRROR.
    pub selection: Option<RefSelection>,
    _lock: File,
}

/// MIRROR, locked, its working directories made.
pub struct MirrorRepo {
    pub git_dir: PathBuf,
    _lock: File,
}

/// Opens DEST, which must be a SHA-256 repository whose conversion
/// finished, and takes its lock.
pub fn open_dest(path: &Path) -> Result<DestRepo, ExportError> {
    let refuse = |reason: String| ExportRefusal::NotAConversion {
        path: path.to_path_buf(),
        reason,
    };
    let git_dir = fs::canonicalize(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ExportError::from(refuse(
            "it does not exist; DEST is the repository `git-rehash convert` made".into(),
        )),
        _ => PathError::new(path, e).into(),
    })?;
    let config_path = dest_layout::config(&git_dir);
    let config = GitConfig::read(&config_path).map_err(PathError::at(&config_path))?;
    let format = config
        .get("extensions.objectformat")
        .unwrap_or("sha1")
        .to_ascii_lowercase();
    if format == "sha1" && dest_layout::map_db(&git_dir).is_file() {
        return Err(refuse(
            "it is the SHA-1 side of a conversion from SHA-256 already (`git-rehash convert` \
             of a SHA-256 SOURCE): it needs no export; push it, or run `git-rehash convert` \
             on it to go back to SHA-256"
                .into(),
        )
        .into());
    }
    if format != "sha256" || !dest_layout::head(&git_dir).is_file() {
        return Err(refuse(format!(
            "it is not a SHA-256 repository (object format {format}); DEST is what \
             `git-rehash convert` made"
        ))
        .into());
    }
    let map_path = dest_layout::map_db(&git_dir);
    if !map_path.is_file() {
        return Err(refuse(format!(
            "it has no map database ({}); only a repository `git-rehash convert` made can be \
             exported, since its map names the SHA-1 side",
            map_path.display()
        ))
        .into());
    }
    let lock = dest_layout::lock(&git_dir);
    let lock_file = take_lock(&git_dir, &lock)?;
    let map = IdMap::open_rw(&map_path)?;
    if map.meta("state")?.as_deref() != Some("complete") {
        return Err(refuse(
            "its conversion is not finished; run the same `git-rehash convert` again first".into(),
        )
        .into());
    }
    let strict_headers = map.meta("strict_headers")?.as_deref() == Some("true");
    let selection = map.ref_selection()?;
    Ok(DestRepo {
        git_dir,
        map,
        strict_headers,
        selection,
        _lock: lock_file,
    })
}

/// Opens MIRROR, which must be a SHA-1 repository other than DEST, makes
/// the export's working directories and takes their lock.
pub fn open_mirror(path: &Path, dest: &Path) -> Result<MirrorRepo, ExportError> {
    let repo = SourceRepo::open(path).map_err(ExportError::Mirror)?;
    if repo.object_format != HashKind::Sha1 {
        return Err(ExportRefusal::NotAConversion {
            path: path.to_path_buf(),
            reason: format!(
                "MIRROR uses object format {}; export-sha1 writes into a SHA-1 repository",
                repo.object_format
            ),
        }
        .into());
    }
    if repo.ref_storage == RefStorage::Reftable {
        return Err(ExportRefusal::MirrorLayout {
            path: path.to_path_buf(),
            reason: "it keeps its refs in reftable, and the export updates files refs under \
                     git's ref locks; run `git refs migrate --ref-format=files` in MIRROR first"
                .into(),
        }
        .into());
    }
    if let Some(borrowed) = repo.alternates.first() {
        return Err(ExportRefusal::MirrorLayout {
            path: path.to_path_buf(),
            reason: format!(
                "it borrows objects from {} (objects/info/alternates), which the export \
                 neither reads nor writes; make MIRROR self-contained first (`git repack -a \
                 -d`, then remove the file)",
                borrowed.display()
            ),
        }
        .into());
    }
    let git_dir = repo.git_dir;
    if git_dir == dest {
        return Err(ExportRefusal::NotAConversion {
            path: path.to_path_buf(),
            reason: "MIRROR and DEST are the same repository; MIRROR is the SHA-1 repository \
                     to bring in line with DEST"
                .into(),
        }
        .into());
    }
    for dir in [
        mirror_layout::segments_dir(&git_dir),
        mirror_layout::fold_dir(&git_dir),
        mirror_layout::pack_dir(&git_dir),
    ] {
        fs::create_dir_all(&dir).map_err(PathError::at(&dir))?;
    }
    let lock = take_lock(&git_dir, &mirror_layout::lock(&git_dir))?;
    Ok(MirrorRepo {
        git_dir,
        _lock: lock,
    })
}

fn take_lock(repo: &Path, lock: &Path) -> Result<File, ExportError> {
    crate::flock::try_lock(lock)?.ok_or_else(|| {
        ExportRefusal::Locked {
            repo: repo.to_path_buf(),
            lock: lock.to_path_buf(),
        }
        .into()
    })
}
