//! The destination repository: created empty, locked while we work, and
//! published last.
//!
//! git recognises a directory as a repository by its `HEAD`, `objects/` and
//! `refs/`; the object format comes from `config`. So `HEAD` and then
//! `config` are written last of what git-rehash writes, after the pack, its
//! bitmap, the commit-graph and every ref are in place: an interrupted
//! first conversion leaves a directory git does not open. Later runs
//! (resume, incremental update) reuse DEST as it is.

pub mod leftovers;

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use crate::convert::error::ConvertError;
use crate::convert::error::{DestState, Refusal};
use crate::durable;
use crate::hash::HashKind;
use crate::repo::cannot_create::why_cannot_create;
use crate::repo::dest_layout;

/// The config that makes DEST a bare repository whose objects are named
/// in `hash`, with `extensions` (`name = value` lines of `[extensions]`:
/// git's compat map, reftable refs). As `git init` writes it: a SHA-256
/// repository names its format, which needs format version 1; a SHA-1
/// repository needs none, and stays at version 0 unless it has extensions.
pub(crate) fn config(hash: HashKind, extensions: &[String]) -> String {
    let mut lines: Vec<String> = Vec::new();
    if hash != HashKind::Sha1 {
        lines.push(format!("objectformat = {hash}"));
    }
    lines.extend(extensions.iter().cloned());
    let version = if lines.is_empty() { 0 } else { 1 };
    let mut config = format!(
        "[core]\n\trepositoryformatversion = {version}\n\tfilemode = true\n\tbare = true\n"
    );
    if !lines.is_empty() {
        config.push_str("[extensions]\n");
        for line in lines {
            config.push_str(&format!("\t{line}\n"));
        }
    }
    config
}

/// A destination being written; holds the lock until dropped.
pub struct Dest {
    pub path: PathBuf,
    /// `rehash/convert.lock`, flock-ed: the kernel releases the lock when
    /// the process dies, however it dies, so a killed run never blocks the
    /// next one.
    _lock: File,
    /// DEST was an empty directory before this run created its skeleton.
    preexisting: bool,
}

impl Dest {
    /// Creates DEST (which must not exist, or be fresh: see [`is_fresh`])
    /// and its skeleton, and takes the lock.
    pub fn create(path: &Path) -> Result<Self, ConvertError> {
        let preexisting = path.exists();
        if preexisting && !is_fresh(path)? {
            return Err(DestState::Exists {
                path: path.to_path_buf(),
                ours: dest_layout::rehash_dir(path).is_dir(),
            }
            .into());
        }
        // `rehash/` first: a DEST with it is recognised as ours, so a run
        // killed while making the skeleton is resumed, not refused.
        let d = dest_layout::rehash_dir(path);
        fs::create_dir_all(&d).map_err(|e| match why_cannot_create(&d, &e) {
            Some(why) => DestState::CannotCreate {
                path: path.to_path_buf(),
                why,
            }
            .into(),
            None => ConvertError::io(&d, e),
        })?;
        let mut dest = Self::open(path)?;
        dest.preexisting = preexisting;
        Ok(dest)
    }

    /// Removes everything this run put in DEST (a refused first run must
    /// leave nothing behind); an empty directory the user made stays, and
    /// so do the submodules converted into `modules/` before this run
    /// (complete conversions of their own, resumed by the next run).
    pub fn discard(self) -> Result<(), ConvertError> {
        let path = &self.path;
        if !self.preexisting {
            return fs::remove_dir_all(path).map_err(|e| ConvertError::io(path, e));
        }
        for entry in fs::read_dir(path).map_err(|e| ConvertError::io(path, e))? {
            let entry = entry.map_err(|e| ConvertError::io(path, e))?.path();
            if entry.file_name().is_some_and(|n| n == dest_layout::MODULES) {
                continue; // fresh DEST: only submodules were there (is_fresh)
            }
            let removed = if entry.is_dir() {
                fs::remove_dir_all(&entry)
            } else {
                fs::remove_file(&entry)
            };
            removed.map_err(|e| ConvertError::io(&entry, e))?;
        }
        Ok(())
    }

    /// Takes the lock of an existing DEST made by git-rehash.
    pub fn open(path: &Path) -> Result<Self, ConvertError> {
        let path = fs::canonicalize(path).map_err(|e| ConvertError::io(path, e))?;
        let lock = dest_layout::lock(&path);
        let f = crate::flock::try_lock(&lock)?
            .ok_or_else(|| DestState::Locked { lock: lock.clone() })?;
        // The rest of the skeleton (again, if a killed run left it
        // unfinished). What exists stays: a reftable DEST's `refs/heads` is
        // a file.
        for dir in dest_layout::SKELETON {
            let d = path.join(dir);
            if d.symlink_metadata().is_err() {
                fs::create_dir_all(&d).map_err(|e| ConvertError::io(&d, e))?;
            }
        }
        Ok(Dest {
            path,
            _lock: f,
            preexisting: true,
        })
    }

    pub fn pack_dir(&self) -> PathBuf {
        dest_layout::pack_dir(&self.path)
    }

    /// Writes `HEAD`, then `config`: the moment DEST becomes a repository
    /// (on a later run, both are rewritten, `HEAD` possibly changed).
    /// `config` is [`config`]'s.
    pub fn publish(&self, head: &[u8], config: &str) -> Result<(), ConvertError> {
        durable::sync_tree(&self.path)?;
        durable::write_file(&dest_layout::head(&self.path), head)?;
        durable::write_file(&dest_layout::config(&self.path), config.as_bytes())?;
        Ok(())
    }
}

/// Whether DEST holds no conversion yet: it is empty, or holds nothing but
/// `modules/`, where `--recurse-submodules` converts the submodules before
/// the superproject (`convert/submodules/`).
pub fn is_fresh(path: &Path) -> Result<bool, ConvertError> {
    if path.metadata().is_ok_and(|m| !m.is_dir()) {
        return Err(DestState::CannotCreate {
            path: path.to_path_buf(),
            why: format!("{} is a file, not a directory", path.display()),
        }
        .into());
    }
    for entry in fs::read_dir(path).map_err(|e| ConvertError::io(path, e))? {
        let entry = entry.map_err(|e| ConvertError::io(path, e))?;
        if entry.file_name() != dest_layout::MODULES || !entry.path().is_dir() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether `path` is a directory with nothing in it.
pub fn is_empty_dir(path: &Path) -> Result<bool, ConvertError> {
    Ok(fs::read_dir(path)
        .map_err(|e| ConvertError::io(path, e))?
        .next()
        .is_none())
}

/// Writing DEST inside SOURCE's git directory or work tree would change the
/// source (and, for a work tree, make git see untracked files).
pub fn check_outside_source(
    dest: &Path,
    git_dir: &Path,
    source: &Path,
) -> Result<(), ConvertError> {
    let source_abs = std::fs::canonicalize(source).unwrap_or_else(|_| absolute_lexical(source));
    let resolved = resolve_dest(dest);
    if resolved.starts_with(git_dir) || resolved.starts_with(&source_abs) {
        return Err(Refusal::DestInsideSource {
            dest: dest.to_path_buf(),
            source_dir: source_abs,
        }
        .into());
    }
    Ok(())
}

/// The object directories SOURCE borrows from are part of it: DEST must not
/// be inside one, nor inside the repository whose `objects/` it is.
pub fn check_outside_alternates(dest: &Path, alternates: &[PathBuf]) -> Result<(), ConvertError> {
    let resolved = resolve_dest(dest);
    for dir in alternates {
        let repository = match dir.file_name() {
            Some(name) if name == "objects" => dir.parent().unwrap_or(dir),
            _ => dir,
        };
        if resolved.starts_with(repository) {
            return Err(Refusal::DestInsideSource {
                dest: dest.to_path_buf(),
                source_dir: repository.to_path_buf(),
            }
            .into());
        }
    }
    Ok(())
}

/// DEST as an absolute path, with the symlinks of its deepest existing
/// ancestor resolved.
fn resolve_dest(dest: &Path) -> PathBuf {
    let dest_abs = absolute_lexical(dest);
    // Resolve the deepest existing ancestor of DEST, so symlinks are seen through.
    let mut probe = dest_abs.clone();
    let mut tail = Vec::new();
    while !probe.exists() {
        match (probe.file_name().map(|n| n.to_os_string()), probe.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name);
                probe = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut resolved = std::fs::canonicalize(&probe).unwrap_or(probe);
    for name in tail.into_iter().rev() {
        resolved.push(name);
    }
    resolved
}

fn absolute_lexical(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|c| c.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}
