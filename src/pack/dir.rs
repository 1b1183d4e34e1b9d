//! The packs of an `objects/pack` directory.
//!
//! git opens every `*.idx` whose `.pack` sits beside it, whatever its name
//! (`packfile.c`: `prepare_pack`), so the packs read here are the same:
//! `pack-<hash>` as git names them, but also packs renamed by hand or by
//! other tools, cruft packs (their `.mtimes` only dates their objects) and
//! packs a `.keep` protects. An `.idx` without its `.pack` is skipped, as
//! git skips it. The other files of the directory (`.rev`, `.bitmap`,
//! `.mtimes`, `.keep`, `.promisor`, `multi-pack-index` and its `.bitmap`
//! and `.rev`) only help git find or keep objects the packs already hold.

use std::io;
use std::path::{Path, PathBuf};

use crate::durable::PathError;

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
        let path = entry?.path();
        if is_index_with_pack(&path) {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// Deletes the pack whose index is `idx` and the files beside it that
/// describe it, the index first: no reader finds an index without its
/// pack. Files already gone are fine (a run stopped half-way through).
pub fn remove_pack(idx: &Path) -> Result<(), PathError> {
    for ext in ["idx", "bitmap", "pack", "rev"] {
        let path = idx.with_extension(ext);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(PathError::new(&path, e)),
        }
    }
    Ok(())
}

/// `path` names an `.idx` file (with a name before the extension) and the
/// `.pack` of the same name exists.
fn is_index_with_pack(path: &Path) -> bool {
    let is_idx = path.extension().is_some_and(|ext| ext == "idx")
        && path.file_stem().is_some_and(|stem| !stem.is_empty());
    is_idx && path.with_extension("pack").exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        list_packs(dir)
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn every_index_with_its_pack_whatever_its_name() {
        let dir = tempfile::tempdir().unwrap();
        for file in [
            "pack-aa.idx",
            "pack-aa.pack",
            "pack-aa.keep",
            "custom.idx",
            "custom.pack",
            "cruft.idx",
            "cruft.pack",
            "cruft.mtimes",
            "orphan.idx",
            "multi-pack-index",
            "multi-pack-index-bb.bitmap",
            "pack-aa.bitmap",
            "pack-cc.pack",
        ] {
            std::fs::write(dir.path().join(file), b"").unwrap();
        }
        assert_eq!(
            names(dir.path()),
            ["cruft.idx", "custom.idx", "pack-aa.idx"]
        );
    }

    #[test]
    fn a_missing_directory_holds_no_packs() {
        let dir = tempfile::tempdir().unwrap();
        assert!(names(&dir.path().join("pack")).is_empty());
    }
}
