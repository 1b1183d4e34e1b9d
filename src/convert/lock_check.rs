//! A conversion in progress owns its DEST: nothing else may touch it, not
//! even `--force` (which would delete the files under the running process).

use std::path::Path;

use super::ConvertError;
use super::dest::rehash_dir;

/// Refuses when `DEST/rehash/convert.lock` exists: another `convert` is
/// writing DEST (or one died without removing its lock, which the message
/// tells the user to check and remove).
pub fn refuse_if_locked(dest: &Path) -> Result<(), ConvertError> {
    let lock = rehash_dir(dest).join("convert.lock");
    match std::fs::symlink_metadata(&lock) {
        Ok(_) => Err(ConvertError::Locked { lock }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        // Not a directory (DEST or DEST/rehash is a file) and the like:
        // creating DEST reports those with their path.
        Err(_) => Ok(()),
    }
}
