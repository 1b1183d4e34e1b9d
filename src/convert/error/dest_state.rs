//! DEST is not in a state this run may write to: it belongs to something
//! else, cannot be created, another run holds it, or it no longer matches
//! its record. Each message names DEST and the next step that is safe;
//! none advises deleting a directory git-rehash did not make.

use std::path::{Path, PathBuf};

use crate::pipeline::ErrorKind;

#[derive(Debug, thiserror::Error)]
pub enum DestState {
    #[error("{}", dest_exists_message(path, *ours))]
    Exists { path: PathBuf, ours: bool },
    /// DEST cannot be made where it is named; `why` says so in words.
    #[error(
        "cannot create the destination {}: {why}; nothing was written. Name a DEST in a \
         directory you can write to",
        path.display()
    )]
    CannotCreate { path: PathBuf, why: String },
    #[error(
        "another git-rehash is working on this destination (it holds the lock file {}); wait for \
         it to finish or stop it first",
        lock.display()
    )]
    Locked { lock: PathBuf },
    /// DEST is an earlier conversion that this run may not continue.
    #[error(
        "destination {} {reason}; nothing was changed. Name the DEST of this conversion, or \
         run with --force to delete that earlier conversion and start over",
        path.display()
    )]
    Mismatch { path: PathBuf, reason: String },
    /// A command that works on a finished conversion was given something
    /// else.
    #[error(
        "{} is not a git-rehash conversion ({reason}); name the DEST a `git-rehash convert` made",
        path.display()
    )]
    NotAConversion { path: PathBuf, reason: String },
    /// A command that works on a finished conversion was given one that
    /// has not finished.
    #[error(
        "{} holds an unfinished conversion; run the same `git-rehash convert SOURCE {}` again \
         to finish it first",
        path.display(),
        path.display()
    )]
    Unfinished { path: PathBuf },
    /// Commits were made in DEST: a conversion would move its refs back.
    #[error(
        "destination {} has history of its own: {reason}. A convert run would move DEST's refs \
         back to SOURCE's, so it changed nothing; git-rehash does not guess which side's history \
         wins (docs/interop.md, \"When both sides gain commits\")",
        path.display()
    )]
    OwnHistory { path: PathBuf, reason: String },
    #[error(
        "destination {} is damaged: {reason}. `git-rehash convert --force SOURCE {}` deletes \
         it and converts anew",
        path.display(),
        path.display()
    )]
    Damaged { path: PathBuf, reason: String },
}

impl DestState {
    /// A DEST that is another's, or cannot be made, is the command's
    /// mistake; a lock is released when its run ends; the rest need a
    /// decision about DEST.
    pub fn kind(&self) -> ErrorKind {
        match self {
            DestState::Exists { ours: false, .. }
            | DestState::CannotCreate { .. }
            | DestState::Mismatch { .. }
            | DestState::NotAConversion { .. } => ErrorKind::Usage,
            DestState::Locked { .. } => ErrorKind::Failed,
            DestState::Exists { ours: true, .. }
            | DestState::Unfinished { .. }
            | DestState::OwnHistory { .. }
            | DestState::Damaged { .. } => ErrorKind::DestState,
        }
    }
}

fn dest_exists_message(path: &Path, ours: bool) -> String {
    if ours {
        format!(
            "destination {} holds git-rehash files but no map database this version can resume from; run again with --force to start over",
            path.display()
        )
    } else {
        format!(
            "destination {} exists and is not empty, and git-rehash did not make it; nothing was \
             written. Name a new directory (or an empty one) as DEST",
            path.display()
        )
    }
}
