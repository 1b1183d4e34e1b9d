//! Durable files: the one way git-rehash writes a file that a reader, or a
//! run after a crash, may rely on (git's `lockfile.c` and `csum-file.c`
//! play this part in git).
//!
//! A file is written under a temporary name in its own directory, flushed
//! (`fsync`), renamed over its final name, and the directory is flushed
//! too, since the rename is a change to the directory. A reader sees the
//! old content or the whole new one, never a part, and once the call
//! returns the new content survives a power cut.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// An I/O error and the file or directory it happened on.
#[derive(Debug, thiserror::Error)]
#[error("{}", path.display())]
pub struct PathError {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

impl PathError {
    pub fn new(path: &Path, source: io::Error) -> Self {
        PathError {
            path: path.to_path_buf(),
            source,
        }
    }

    /// For `map_err`: the error of an operation on `path`.
    pub fn at(path: &Path) -> impl FnOnce(io::Error) -> PathError + '_ {
        move |source| PathError::new(path, source)
    }
}

/// The temporary name a file is written under before it replaces `path`.
pub fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".rehash-tmp");
    PathBuf::from(name)
}

/// Writes `contents` as the new content of `path`, durably.
pub fn write_file(path: &Path, contents: &[u8]) -> Result<(), PathError> {
    write_file_with(path, |file| file.write_all(contents))
}

/// Writes the new content of `path` with `write`, durably. `write` gets the
/// temporary file; an error leaves `path` as it was and removes the
/// temporary file.
pub fn write_file_with(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), PathError> {
    write_file_via(&temp_path(path), path, write)
}

/// [`write_file_with`] through the temporary file `tmp`, for files whose
/// temporary name follows a convention of git's (`tmp_obj_*` for loose
/// objects, which git's own cleanup knows).
pub fn write_file_via(
    tmp: &Path,
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), PathError> {
    let tmp = tmp.to_path_buf();
    let mut temps = TempFiles::default();
    let mut file = File::create(&tmp).map_err(PathError::at(&tmp))?;
    temps.add(tmp.clone());
    write(&mut file).map_err(PathError::at(&tmp))?;
    file.sync_all().map_err(PathError::at(&tmp))?;
    drop(file);
    fs::rename(&tmp, path).map_err(PathError::at(path))?;
    temps.disarm();
    sync_dir(parent_of(path))
}

/// Renames the flushed file `from` to `to` and flushes their directory.
pub fn rename_into_place(from: &Path, to: &Path) -> Result<(), PathError> {
    fs::rename(from, to).map_err(PathError::at(to))?;
    sync_dir(parent_of(to))
}

/// Makes the renames and new files of `dir` durable: a directory entry is
/// data too.
pub fn sync_dir(dir: &Path) -> Result<(), PathError> {
    #[cfg(unix)]
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(PathError::at(dir))?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Flushes every directory below `root`, so that the renames done in any
/// of them are durable.
pub fn sync_tree(root: &Path) -> Result<(), PathError> {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).map_err(PathError::at(&dir))? {
            let entry = entry.map_err(PathError::at(&dir))?;
            if entry.file_type().map_err(PathError::at(&dir))?.is_dir() {
                stack.push(entry.path());
            }
        }
        sync_dir(&dir)?;
    }
    Ok(())
}

/// Creates `dir/<prefix>XXXXXX` exclusively, read-only from the start as
/// git's `odb_mkstemp` does (the mode only governs later opens).
pub fn create_temp(dir: &Path, prefix: &str) -> Result<(PathBuf, File), PathError> {
    const ALPHABET: &[u8; 62] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut last_error = None;
    for _ in 0..100 {
        // RandomState is seeded randomly per process; the counter and the
        // clock make successive names differ.
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        h.write_u32(std::process::id());
        if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            h.write_u128(t.as_nanos());
        }
        let mut bits = h.finish();
        let mut name = String::from(prefix);
        for _ in 0..6 {
            name.push(char::from(ALPHABET[(bits % 62) as usize]));
            bits /= 62;
        }
        let path = dir.join(name);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o444);
        match options.open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_error = Some((path, e)),
            Err(e) => return Err(PathError::new(&path, e)),
        }
    }
    let (path, e) = last_error.expect("the loop ran and every attempt collided");
    Err(PathError::new(&path, e))
}

/// Temporary files removed when this is dropped, unless disarmed first:
/// an error on the way leaves no temporary file behind.
#[derive(Default)]
pub struct TempFiles(Vec<PathBuf>);

impl TempFiles {
    pub fn add(&mut self, path: PathBuf) {
        self.0.push(path);
    }

    /// The files were renamed into place: nothing to remove.
    pub fn disarm(&mut self) {
        self.0.clear();
    }
}

impl Drop for TempFiles {
    fn drop(&mut self) {
        for path in &self.0 {
            // Best effort: a leftover temporary file is garbage git ignores,
            // and the next run removes it.
            let _ = fs::remove_file(path);
        }
    }
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_file_replaces_the_old_one_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("HEAD");
        write_file(&path, b"old\n").unwrap();
        write_file(&path, b"new\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new\n");
        assert!(!temp_path(&path).exists());
    }

    #[test]
    fn a_failed_write_keeps_the_old_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        write_file(&path, b"kept\n").unwrap();
        let failed = write_file_with(&path, |f| {
            f.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        let err = failed.unwrap_err();
        assert_eq!(err.path, temp_path(&path));
        assert_eq!(fs::read(&path).unwrap(), b"kept\n");
        assert!(!temp_path(&path).exists());
    }

    #[test]
    fn temporary_names_are_fresh_and_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let (a, _) = create_temp(dir.path(), "tmp_pack_").unwrap();
        let (b, _) = create_temp(dir.path(), "tmp_pack_").unwrap();
        assert_ne!(a, b);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&a).unwrap().permissions().mode() & 0o777,
                0o444
            );
        }
    }
}
