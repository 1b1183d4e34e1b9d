//! The destination repository: created empty, locked while we work, and
//! published last.
//!
//! git recognises a directory as a repository by its `HEAD`, `objects/` and
//! `refs/`; the object format comes from `config`. So `HEAD` and then
//! `config` are written at the very end, after every pack and ref is in
//! place: an interrupted conversion leaves a directory git does not open.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::ConvertError;

/// The directory of git-rehash's own files inside DEST.
pub fn rehash_dir(dest: &Path) -> PathBuf {
    dest.join("rehash")
}

/// The repository config that makes DEST a SHA-256 repository.
const CONFIG: &str = "[core]\n\trepositoryformatversion = 1\n\tfilemode = true\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n";

/// A destination being written; holds the lock until dropped.
pub struct Dest {
    pub path: PathBuf,
    lock: PathBuf,
}

impl Dest {
    /// Creates DEST (which must not exist, or be an empty directory) and its
    /// skeleton, and takes the lock. With `force`, an earlier unfinished
    /// git-rehash output at DEST is removed first.
    pub fn create(path: &Path, force: bool) -> Result<Self, ConvertError> {
        super::lock_check::refuse_if_locked(path)?;
        if path.exists() {
            let empty = fs::read_dir(path)
                .map_err(|e| ConvertError::io(path, e))?
                .next()
                .is_none();
            if !empty {
                let ours = rehash_dir(path).is_dir();
                if force && ours {
                    fs::remove_dir_all(path).map_err(|e| ConvertError::io(path, e))?;
                } else {
                    return Err(ConvertError::DestExists {
                        path: path.to_path_buf(),
                        ours,
                    });
                }
            }
        }
        for dir in [
            "objects/pack",
            "objects/info",
            "refs/heads",
            "refs/tags",
            "rehash",
        ] {
            let d = path.join(dir);
            fs::create_dir_all(&d).map_err(|e| ConvertError::io(&d, e))?;
        }
        let path = fs::canonicalize(path).map_err(|e| ConvertError::io(path, e))?;
        let lock = rehash_dir(&path).join("convert.lock");
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    ConvertError::Locked { lock: lock.clone() }
                } else {
                    ConvertError::io(&lock, e)
                }
            })?;
        writeln!(f, "{}", std::process::id()).map_err(|e| ConvertError::io(&lock, e))?;
        Ok(Dest { path, lock })
    }

    pub fn pack_dir(&self) -> PathBuf {
        self.path.join("objects").join("pack")
    }

    /// Writes `HEAD`, then `config`: the moment DEST becomes a repository.
    pub fn publish(&self, head: &[u8]) -> Result<(), ConvertError> {
        sync_tree(&self.path)?;
        write_atomically(&self.path.join("HEAD"), head)?;
        write_atomically(&self.path.join("config"), CONFIG.as_bytes())?;
        sync_dir(&self.path)
    }
}

impl Drop for Dest {
    fn drop(&mut self) {
        // Best effort: a stale lock only blocks a later run, which names it.
        let _ = fs::remove_file(&self.lock);
    }
}

/// temp file + fsync + rename, so a reader sees the old or the new content.
pub fn write_atomically(path: &Path, content: &[u8]) -> Result<(), ConvertError> {
    let tmp = path.with_extension("rehash-tmp");
    let mut f = File::create(&tmp).map_err(|e| ConvertError::io(&tmp, e))?;
    f.write_all(content)
        .map_err(|e| ConvertError::io(&tmp, e))?;
    f.sync_all().map_err(|e| ConvertError::io(&tmp, e))?;
    fs::rename(&tmp, path).map_err(|e| ConvertError::io(path, e))
}

fn sync_dir(dir: &Path) -> Result<(), ConvertError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| ConvertError::io(dir, e))
}

/// fsyncs every directory below `root`, so renames done in them are durable
/// before the repository is published.
fn sync_tree(root: &Path) -> Result<(), ConvertError> {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).map_err(|e| ConvertError::io(&dir, e))? {
            let entry = entry.map_err(|e| ConvertError::io(&dir, e))?;
            if entry
                .file_type()
                .map_err(|e| ConvertError::io(&dir, e))?
                .is_dir()
            {
                stack.push(entry.path());
            }
        }
        sync_dir(&dir)?;
    }
    Ok(())
}
