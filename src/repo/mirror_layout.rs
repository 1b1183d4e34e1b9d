//! Every path `git-rehash export-sha1` uses inside MIRROR, the SHA-1
//! repository it writes into (docs/files.md): git's own layout, and the
//! one directory of its own, `rehash-export/`, which git never reads.

use std::path::{Path, PathBuf};

/// `objects/`.
pub fn objects_dir(mirror: &Path) -> PathBuf {
    mirror.join("objects")
}

/// `objects/pack/`: where the folded pack of a run is moved in.
pub fn pack_dir(mirror: &Path) -> PathBuf {
    objects_dir(mirror).join("pack")
}

/// `rehash-export/`: the export's working files. Not under `objects/`,
/// so git never takes a segment for a pack of the repository.
pub fn work_dir(mirror: &Path) -> PathBuf {
    mirror.join("rehash-export")
}

/// `rehash-export/export.lock`: held (flock) while an export writes MIRROR.
pub fn lock(mirror: &Path) -> PathBuf {
    work_dir(mirror).join("export.lock")
}

/// `rehash-export/segments/`: the checkpoint packs of unfinished runs.
pub fn segments_dir(mirror: &Path) -> PathBuf {
    work_dir(mirror).join("segments")
}

/// `rehash-export/fold/`: where the segments are folded into one pack
/// before it is moved into `objects/pack/`.
pub fn fold_dir(mirror: &Path) -> PathBuf {
    work_dir(mirror).join("fold")
}

/// `rehash-export/attest-scratch/`: where `export-sha1 --attest` signs
/// MIRROR's statement (see `dest_layout::attest_scratch`).
pub fn attest_scratch(mirror: &Path) -> PathBuf {
    work_dir(mirror).join("attest-scratch")
}
