//! Publishing the translated ref files: all of them durable, none ever
//! seen half-written, at the cost of two flushes rather than one a file.
//!
//! Each file is written as `<path>.lock` and renamed into place, so a
//! reader sees the old file or the whole new one; git skips `*.lock` files
//! when listing refs, so a leftover from an interrupted run is harmless and
//! is overwritten by the next one (the destination is ours alone).
//!
//! A flush (`fdatasync`) per file is one journal commit and a disk cache
//! flush each: ~0.8 ms here, so git.git's 1,016 loose refs took ~0.8 s,
//! and a hosting repository with 100k refs would wait minutes. From
//! [`FLUSH_ALL_FROM`] files on, on Linux, the bytes of all files are
//! flushed at once with `syncfs` before the renames, and the renames with
//! a second `syncfs` after them (1,000 small files: 0.82 s one flush each,
//! 0.18 s this way). `syncfs` also waits for whatever else is dirty on
//! that filesystem, which on a busy server can be a lot; so a few files
//! (the usual case: packed refs, a handful of loose ones) are flushed one
//! by one, then their directories, as everywhere else.

use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::RefsError;

/// Writes every `(path, bytes)` of `files` (all under `root`) so that,
/// once this returns, each is durable under its name.
pub fn publish_all(root: &Path, files: &[(PathBuf, Vec<u8>)]) -> Result<(), RefsError> {
    if files.is_empty() {
        return Ok(());
    }
    let whole_filesystem = FLUSH_WHOLE_FILESYSTEM && files.len() >= FLUSH_ALL_FROM;
    let mut locks = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| RefsError::io(parent, e))?;
        }
        let lock = lock_path(path);
        let mut file = fs::File::create(&lock).map_err(|e| RefsError::io(&lock, e))?;
        file.write_all(bytes).map_err(|e| RefsError::io(&lock, e))?;
        if !whole_filesystem {
            file.sync_data().map_err(|e| RefsError::io(&lock, e))?;
        }
        locks.push(lock);
    }
    if whole_filesystem {
        flush_filesystem(root)?;
    }
    for ((path, _), lock) in files.iter().zip(&locks) {
        fs::rename(lock, path).map_err(|e| RefsError::io(path, e))?;
    }
    if whole_filesystem {
        flush_filesystem(root)
    } else {
        let dirs: BTreeSet<&Path> = files.iter().filter_map(|(p, _)| p.parent()).collect();
        dirs.into_iter().try_for_each(|dir| {
            fs::File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(|e| RefsError::io(dir, e))
        })
    }
}

/// git's lock file of `path`: `<path>.lock`.
pub(super) fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Whether the platform can flush a whole filesystem at once (`syncfs`).
const FLUSH_WHOLE_FILESYSTEM: bool = cfg!(target_os = "linux");

/// From this many files on, one flush of the filesystem beats one a file.
const FLUSH_ALL_FROM: usize = 64;

/// Flushes everything written to the filesystem holding `root`: data and
/// metadata (new files, renames) alike.
#[cfg(target_os = "linux")]
fn flush_filesystem(root: &Path) -> Result<(), RefsError> {
    use std::os::fd::AsRawFd;
    let dir = fs::File::open(root).map_err(|e| RefsError::io(root, e))?;
    // SAFETY: syncfs only reads the descriptor, which `dir` keeps open.
    match unsafe { libc::syncfs(dir.as_raw_fd()) } {
        0 => Ok(()),
        _ => Err(RefsError::io(root, std::io::Error::last_os_error())),
    }
}

#[cfg(not(target_os = "linux"))]
fn flush_filesystem(_root: &Path) -> Result<(), RefsError> {
    unreachable!("only called where FLUSH_WHOLE_FILESYSTEM")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_lands_whole_under_its_name_and_no_lock_is_left() {
        // Either side of the flush-everything threshold.
        for count in [FLUSH_ALL_FROM - 1, FLUSH_ALL_FROM + 50] {
            publishes(count);
        }
    }

    fn publishes(count: usize) {
        let dir =
            std::env::temp_dir().join(format!("rehash-publish-{}-{count}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let files: Vec<(PathBuf, Vec<u8>)> = (0..count)
            .map(|i| {
                (
                    dir.join(format!("refs/heads/topic/{}/b{i}", i % 7)),
                    format!("{i:064x}\n").into_bytes(),
                )
            })
            .chain([(
                dir.join("packed-refs"),
                b"# pack-refs with: peeled\n".to_vec(),
            )])
            .collect();
        // An earlier interrupted run's leftover lock is overwritten.
        fs::create_dir_all(dir.join("refs/heads/topic/0")).unwrap();
        fs::write(lock_path(&files[0].0), b"stale").unwrap();
        publish_all(&dir, &files).unwrap();
        for (path, bytes) in &files {
            assert_eq!(&fs::read(path).unwrap(), bytes);
            assert!(!lock_path(path).exists());
        }
        publish_all(&dir, &[]).unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_unwritable_place_is_an_error_naming_it() {
        let dir = std::env::temp_dir().join(format!("rehash-publish-bad-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        // A file where a directory must go.
        fs::write(dir.join("refs"), b"").unwrap();
        let files = vec![(dir.join("refs/heads/main"), b"x\n".to_vec())];
        let err = publish_all(&dir, &files).unwrap_err();
        assert!(err.to_string().contains("refs"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
