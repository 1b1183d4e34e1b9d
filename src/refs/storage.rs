//! Which of git's two ref backends a repository uses: the files backend
//! (loose ref files, `packed-refs`, `logs/`) or reftable (`reftable/`).

use std::path::Path;

/// The directory of a reftable repository's stack, inside its git directory.
pub const REFTABLE_DIR: &str = "reftable";

/// A ref backend (git's `--ref-format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RefStorage {
    #[default]
    Files,
    Reftable,
}

impl RefStorage {
    /// The backend of the git directory (or linked worktree directory)
    /// `git_dir`: git creates `reftable/` for the reftable backend, and
    /// nothing else has one.
    pub fn of(git_dir: &Path) -> RefStorage {
        if git_dir.join(REFTABLE_DIR).is_dir() {
            RefStorage::Reftable
        } else {
            RefStorage::Files
        }
    }

    /// The name git uses (`extensions.refStorage`, `--ref-format`).
    pub fn name(self) -> &'static str {
        match self {
            RefStorage::Files => "files",
            RefStorage::Reftable => "reftable",
        }
    }

    /// The backend named `name`, as git spells it.
    pub fn from_name(name: &str) -> Option<RefStorage> {
        match name {
            "files" => Some(RefStorage::Files),
            "reftable" => Some(RefStorage::Reftable),
            _ => None,
        }
    }
}
