//! Directory trees: a fingerprint for "SOURCE is unchanged", and a copy
//! for a test that must change a shared fixture.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Fingerprint of every entry below `dir` (relative path -> SHA-256), for
/// "the source repository is unchanged" assertions.  Regular files hash
/// `"file <mode>\0" + content`, symlinks `"symlink\0" + target`, directories
/// `"dir <mode>\0"`; so content, permission, type and added/removed entries
/// (empty directories included) all show up.  Symlinks are not followed.
pub fn tree_checksums(dir: &Path) -> BTreeMap<PathBuf, [u8; 32]> {
    fn mode(meta: &fs::Metadata) -> u32 {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            meta.permissions().mode()
        }
        #[cfg(not(unix))]
        {
            meta.permissions().readonly() as u32
        }
    }
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, [u8; 32]>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("read_dir {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let meta = fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(base).unwrap().to_path_buf();
            let mut h = Sha256::new();
            if meta.file_type().is_symlink() {
                h.update(b"symlink\0");
                h.update(fs::read_link(&path).unwrap().as_os_str().as_encoded_bytes());
            } else if meta.is_dir() {
                h.update(format!("dir {:o}\0", mode(&meta)).as_bytes());
                walk(base, &path, out);
            } else {
                h.update(format!("file {:o}\0", mode(&meta)).as_bytes());
                h.update(
                    fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display())),
                );
            }
            out.insert(rel, h.finalize().into());
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Recursively copy `src` to `dst` (files, directories, symlinks, modes).
/// Use it to get a private, mutable copy of a shared fixture.
pub fn copy_dir(src: &Path, dst: &Path) {
    fs::create_dir_all(dst).unwrap_or_else(|e| panic!("mkdir {}: {e}", dst.display()));
    for entry in fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let (from, to) = (entry.path(), dst.join(entry.file_name()));
        let ft = entry.file_type().unwrap();
        if ft.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(fs::read_link(&from).unwrap(), &to).unwrap();
        } else if ft.is_dir() {
            copy_dir(&from, &to);
        } else {
            fs::copy(&from, &to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
        }
    }
}
