//! Advisory whole-file locks (`flock`) held for the length of a run: the
//! kernel releases one when its process dies, however it dies, so a killed
//! run never blocks the next one, while a second run at the same time is
//! told at once that the first holds it.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;

use crate::durable::PathError;

/// Takes the lock of `path` (created if missing) without waiting and
/// writes this process's id into it. `Ok(None)`: another process holds it.
pub fn try_lock(path: &Path) -> Result<Option<File>, PathError> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(PathError::at(path))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => return Ok(None),
        Err(fs::TryLockError::Error(e)) => return Err(PathError::new(path, e)),
    }
    file.set_len(0).map_err(PathError::at(path))?;
    writeln!(file, "{}", std::process::id()).map_err(PathError::at(path))?;
    Ok(Some(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.lock");
        let first = try_lock(&path).unwrap().expect("free at first");
        assert!(try_lock(&path).unwrap().is_none(), "held by the first");
        drop(first);
        assert!(try_lock(&path).unwrap().is_some(), "released on drop");
        let pid = fs::read_to_string(&path).unwrap();
        assert_eq!(pid.trim(), std::process::id().to_string());
    }
}
