//! Why a directory cannot be created where it is named, in words: no
//! permission, a file in the way, a read-only filesystem, or a special
//! filesystem (proc, sysfs, ...) that holds no repositories. A run that
//! cannot make its DEST says this instead of an OS error number; other
//! failures (a full disk, an I/O error) are not the path's fault and are
//! reported as they are.

use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Why creating `path` (with its missing parents) failed with `err`, when
/// the reason is the place itself; `None` for failures a retry may cure.
pub fn why_cannot_create(path: &Path, err: &io::Error) -> Option<String> {
    if let Some(file) = file_in_the_way(path) {
        return Some(if file == path {
            format!("{} is a file, not a directory", path.display())
        } else {
            format!("{} is a file, not a directory", file.display())
        });
    }
    let ancestor = deepest_existing(path)?;
    if let Some(fs) = special_filesystem(&ancestor) {
        return Some(format!(
            "{} is on a {fs} filesystem, which the kernel fills itself and which holds no \
             repositories",
            ancestor.display()
        ));
    }
    match err.raw_os_error() {
        Some(libc::EROFS) => Some(format!(
            "{} is on a read-only filesystem",
            ancestor.display()
        )),
        Some(libc::EACCES | libc::EPERM) => Some(no_permission(&ancestor)),
        _ => None,
    }
}

/// The first component of `path` that exists and is not a directory.
fn file_in_the_way(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .find(|p| p.metadata().is_ok_and(|m| !m.is_dir()))
        .map(Path::to_path_buf)
}

/// The deepest ancestor of `path` (or `path` itself) that exists; `.` for
/// a relative path none of whose parts exist.
fn deepest_existing(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .find(|p| p.symlink_metadata().is_ok())
        .map(Path::to_path_buf)
}

fn no_permission(dir: &Path) -> String {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    match dir.metadata() {
        Ok(m) => format!(
            "no permission to write in {} (owner uid {}, mode {:04o}; this run is uid {uid})",
            dir.display(),
            m.uid(),
            m.mode() & 0o7777
        ),
        Err(_) => format!("no permission to write in {}", dir.display()),
    }
}

/// The name of the pseudo-filesystem `dir` is on, if it is one.
fn special_filesystem(dir: &Path) -> Option<&'static str> {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `name` is a NUL-terminated path and `stat` a buffer of the
    // size statfs writes; it is read only when the call succeeded.
    let stat = unsafe {
        if libc::statfs(name.as_ptr(), stat.as_mut_ptr()) != 0 {
            return None;
        }
        stat.assume_init()
    };
    // The magic numbers of linux/magic.h.
    #[allow(clippy::unnecessary_cast)]
    Some(match stat.f_type as i64 {
        0x9fa0 => "proc",
        0x6265_6572 => "sysfs",
        0x0027_e0eb => "cgroup",
        0x6367_7270 => "cgroup2",
        0x1cd1 => "devpts",
        0x6462_6720 => "debugfs",
        0x7472_6163 => "tracefs",
        0x7363_6673 => "securityfs",
        0xcafe_4a11 => "bpf",
        0x6165_676c => "pstore",
        0x6265_6570 => "configfs",
        0xde5e_81e4 => "efivarfs",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_in_the_way_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("afile");
        std::fs::write(&file, b"x").unwrap();
        let err = std::fs::create_dir_all(file.join("x.git")).unwrap_err();
        let why = why_cannot_create(&file.join("x.git"), &err).unwrap();
        assert_eq!(
            why,
            format!("{} is a file, not a directory", file.display())
        );
        let why = why_cannot_create(&file, &err).unwrap();
        assert_eq!(
            why,
            format!("{} is a file, not a directory", file.display())
        );
    }

    #[test]
    fn proc_is_a_special_filesystem() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let dest = Path::new("/proc/x.git/rehash");
        let err = std::fs::create_dir_all(dest).unwrap_err();
        let why = why_cannot_create(dest, &err).unwrap();
        assert!(why.starts_with("/proc is on a proc filesystem"), "{why}");
    }

    #[test]
    fn a_full_disk_is_not_the_places_fault() {
        let dir = tempfile::tempdir().unwrap();
        let err = io::Error::from_raw_os_error(libc::ENOSPC);
        assert_eq!(why_cannot_create(&dir.path().join("x"), &err), None);
    }
}
