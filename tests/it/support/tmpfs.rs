//! A small tmpfs for the tests of writing DEST onto a read-only or full
//! file system. Mounting needs root (the tests run as root here and in
//! CI); where it is not permitted the test says so and checks nothing:
//! nothing is simulated.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::scratch::scratch_dir;

/// A tmpfs mounted for the test, unmounted on drop.
pub struct Mount(PathBuf);

impl Mount {
    /// Mounts a tmpfs with `options` (`mount -o`), or prints a note and
    /// returns None where that is not permitted.
    pub fn tmpfs(label: &str, options: &str) -> Option<Mount> {
        let dir = scratch_dir(label).join("mnt");
        std::fs::create_dir_all(&dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(&dir)
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            Some(Mount(dir))
        } else {
            eprintln!("note: cannot mount a tmpfs here (not root?); {label} not checked");
            None
        }
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}
