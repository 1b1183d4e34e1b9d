//! DEST is not in a state this run may write to: it belongs to something
//! else, another run holds it, or it no longer matches its record.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum DestState {
    #[error("{}", dest_exists_message(path, *ours))]
    Exists { path: PathBuf, ours: bool },
    #[error(
        "another git-rehash is converting into this destination (it holds the lock file {}); wait for it to finish or stop it first",
        lock.display()
    )]
    Locked { lock: PathBuf },
    #[error(
        "destination {} {reason}; refusing to mix states. Run with --force to delete it and start over",
        path.display()
    )]
    Mismatch { path: PathBuf, reason: String },
    /// Commits were made in DEST: a conversion would move its refs back.
    #[error(
        "destination {} has history of its own: {reason}. A convert run would move DEST's refs \
         back to SOURCE's, so it changed nothing; git-rehash does not guess which side's history \
         wins (docs/interop.md, \"When both sides gain commits\")",
        path.display()
    )]
    OwnHistory { path: PathBuf, reason: String },
    #[error(
        "destination {} is damaged: {reason}. Run with --force to delete it and start over",
        path.display()
    )]
    Damaged { path: PathBuf, reason: String },
}

fn dest_exists_message(path: &Path, ours: bool) -> String {
    if ours {
        format!(
            "destination {} holds git-rehash files but no map database this version can resume from; run again with --force to start over",
            path.display()
        )
    } else {
        format!(
            "destination {} exists and is not empty; choose a new directory",
            path.display()
        )
    }
}
