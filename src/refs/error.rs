//! The one error type of the refs layer: every variant names the file (and,
//! for parse errors, the 1-based line) or the ref it is about, so a user can
//! go and look at the exact spot that stopped the conversion.

use std::path::PathBuf;

use crate::hash::{HashKind, ObjectId};

/// Why reading the source refs or writing the translated ones failed.
#[derive(Debug, thiserror::Error)]
pub enum RefsError {
    /// A reftable file (or `tables.list`) is not what git writes: the
    /// reason says what and, for a block, at which offset.
    #[error("{path}: damaged reftable: {reason}")]
    Reftable { path: PathBuf, reason: String },

    /// Reading or writing a file (or listing a directory) failed.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A line of a ref file does not have the shape git writes.
    #[error("{path}:{line}: {reason}")]
    Malformed {
        path: PathBuf,
        line: usize,
        reason: String,
    },

    /// A file name under `refs/` or `logs/` is not UTF-8; ref names are kept
    /// as `String`, so such a ref cannot be carried over faithfully.
    #[error("{path}: ref name is not valid UTF-8")]
    NonUtf8Name { path: PathBuf },

    /// A linked worktree's name becomes part of a ref name in DEST
    /// (`refs/worktree-heads/<name>`), so it must be a valid component.
    #[error(
        "{path}: the linked worktree's name cannot be part of a ref name \
         (its HEAD becomes refs/worktree-heads/<name>); rename it with `git worktree move`"
    )]
    BadWorktreeName { path: PathBuf },

    /// SOURCE has linked worktrees and refs of its own in the namespaces
    /// their refs are carried over to.
    #[error(
        "ref {name} is in refs/worktree-heads/ or refs/worktree-refs/, where the HEADs and refs \
         of linked worktrees are carried over; rename or delete it first"
    )]
    WorktreeNamespaceTaken { name: String },

    /// Without `HEAD` the directory is not a git directory at all.
    #[error("{path}: missing HEAD, not a git directory")]
    MissingHead { path: PathBuf },

    /// A ref (or packed-refs peeled line, or replace-ref name) names an
    /// object that has no translation. The orchestrator checks existence
    /// first, so this is a safety net rather than an expected outcome.
    #[error("ref {refname} points at {id}, which has no translated id")]
    Unmapped { refname: String, id: ObjectId },

    /// Another program holds the lock of a ref to update (`<ref>.lock`).
    #[error(
        "ref {refname} is locked by another program ({}); try again when it is done, or remove the lock file if no git is running",
        lock.display()
    )]
    Locked { refname: String, lock: PathBuf },

    /// A ref to write and an existing one are file and directory of each
    /// other (`refs/heads/a`, `refs/heads/a/b`), which git cannot store.
    #[error("ref {refname} cannot be written: {other} exists, and git cannot have both")]
    NameConflict { refname: String, other: String },

    /// A ref changed after it was read: another program updated it.
    #[error(
        "ref {refname} changed while git-rehash was working (another program updated it); nothing was changed, run again"
    )]
    Changed { refname: String },

    /// The id map answered with an id of the wrong hash kind; writing it
    /// would produce refs the destination repository cannot read.
    #[error("ref {refname}: the map translated {from} into {got:?}, expected a {expected} id")]
    WrongKind {
        refname: String,
        from: ObjectId,
        got: ObjectId,
        expected: HashKind,
    },
}

impl RefsError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        RefsError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn malformed(
        path: impl Into<PathBuf>,
        line: usize,
        reason: impl Into<String>,
    ) -> Self {
        RefsError::Malformed {
            path: path.into(),
            line,
            reason: reason.into(),
        }
    }
}
