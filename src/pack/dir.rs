//! The packs of an `objects/pack` directory.

use std::io;
use std::path::{Path, PathBuf};

/// The `.idx` files of the packs in `pack_dir`, sorted by name (a stable
/// order: the same repository is read the same way every time). A
/// missing directory holds no packs.
pub fn list_packs(pack_dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(pack_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("pack-") && name.ends_with(".idx") {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}
