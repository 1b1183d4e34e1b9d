//! What an export is asked to do: [`ExportOptions`].

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::gitlink_maps::UnmappedGitlinks;

/// Where from, where to, and how.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// The SHA-256 repository a `git-rehash convert` made (read-only but
    /// for its map, which gains the pairs of the objects made in it since).
    pub dest: PathBuf,
    /// The SHA-1 repository to bring up to date: a clone of the original
    /// SOURCE, or an empty repository.
    pub mirror: PathBuf,
    /// Map databases or `<sha1> <sha256>` files naming gitlink targets
    /// (submodule commits), as `convert --submodule-map` takes them.
    pub submodule_maps: Vec<PathBuf>,
    pub unmapped_gitlinks: UnmappedGitlinks,
    /// zlib level for what is compressed anew.
    pub compression: u32,
    /// Worker threads; `None` = all cores.
    pub jobs: Option<usize>,
    /// Set (by a Ctrl-C handler) to stop at the next chunk with
    /// [`crate::pipeline::Interrupted`].
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl ExportOptions {
    pub fn new(dest: impl Into<PathBuf>, mirror: impl Into<PathBuf>) -> Self {
        ExportOptions {
            dest: dest.into(),
            mirror: mirror.into(),
            submodule_maps: Vec::new(),
            unmapped_gitlinks: UnmappedGitlinks::Refuse,
            compression: 6,
            jobs: None,
            interrupt: None,
        }
    }
}
