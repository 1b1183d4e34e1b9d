//! Everything that can stop a conversion, each naming the file, object or
//! offset involved so the user can act on it.

use std::path::{Path, PathBuf};

use super::scan::MissingReference;
use crate::hash::ObjectId;
use crate::object::{ObjectKind, ReferenceRole};

#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0} is not a git repository")]
    NotARepository(PathBuf),
    #[error("cannot convert {path}: {reason}")]
    UnsupportedSource { path: PathBuf, reason: String },
    #[error(
        "cannot convert {path}: a {operation} is in progress; finish or abort it first (its state files hold SHA-1 ids that would be left behind)"
    )]
    InProgress { path: PathBuf, operation: String },
    #[error(
        "destination {dest} is inside the source repository {source_dir}; choose a directory outside it"
    )]
    DestInsideSource { dest: PathBuf, source_dir: PathBuf },
    #[error("{}", dest_exists_message(path, *ours))]
    DestExists { path: PathBuf, ours: bool },
    #[error(
        "another git-rehash is converting into this destination (it holds the lock file {lock}); wait for it to finish or stop it first"
    )]
    Locked { lock: PathBuf },
    #[error(transparent)]
    Pack(#[from] crate::pack::PackError),
    #[error(transparent)]
    Loose(#[from] crate::loose::LooseError),
    #[error(
        "object {id} in {file}: {detail}; refusing to convert an object built by a collision attack"
    )]
    Collision {
        id: ObjectId,
        file: String,
        detail: String,
    },
    #[error("object {expected} in {file} hashes to {actual}: the object is corrupt")]
    HashMismatch {
        expected: ObjectId,
        actual: ObjectId,
        file: String,
    },
    #[error(
        "object {id} in {file} at offset {offset}: CRC32 does not match the pack index; the stored data is corrupt"
    )]
    CrcMismatch {
        id: ObjectId,
        file: String,
        offset: u64,
    },
    #[error(
        "pack index {idx}: object {id} is at offset {offset}, outside the pack's entries (12..{data_end}); the index does not describe this pack"
    )]
    IdxOffsetOutOfRange {
        idx: PathBuf,
        id: ObjectId,
        offset: u64,
        data_end: u64,
    },
    #[error("object {id} is listed in a pack index but was never decoded from its pack")]
    NotDecoded { id: ObjectId },
    #[error("{kind} {id} is malformed: {reason}")]
    Malformed {
        id: ObjectId,
        kind: ObjectKind,
        reason: String,
    },
    #[error("{}", missing_message(.0))]
    MissingObjects(Vec<MissingReference>),
    #[error("{0}")]
    UnmappedGitlinks(String),
    #[error("object {id} is part of a reference cycle")]
    ReferenceCycle { id: ObjectId },
    #[error("cannot translate {kind} {id}: {source}")]
    Translate {
        id: ObjectId,
        kind: ObjectKind,
        source: crate::translate::TranslateError,
    },
    #[error("ref {refname} points to {id}, which is not in the repository")]
    MissingRefTarget { refname: String, id: ObjectId },
    #[error(transparent)]
    PackWrite(#[from] crate::pack::write::PackWriteError),
    #[error(transparent)]
    Refs(#[from] crate::refs::RefsError),
    #[error(transparent)]
    Map(#[from] crate::idmap::IdMapError),
    #[error("submodule {name} ({repo}): {error}")]
    Submodule {
        name: String,
        repo: PathBuf,
        error: Box<ConvertError>,
    },
    #[error("{0}")]
    IncompatibleOptions(String),
    #[error("interrupted")]
    Interrupted,
    #[error(
        "destination {path} {reason}; refusing to mix states. Run with --force to delete it and start over"
    )]
    DestMismatch { path: PathBuf, reason: String },
    #[error(
        "destination {path} is damaged: {reason}. Run with --force to delete it and start over"
    )]
    DestDamaged { path: PathBuf, reason: String },
}

impl ConvertError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        ConvertError::Io {
            path: path.to_path_buf(),
            source,
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
            "destination {} exists and is not empty; choose a new directory",
            path.display()
        )
    }
}

fn missing_message(missing: &[MissingReference]) -> String {
    const SHOWN: usize = 10;
    // A tree may name the same absent blob under many paths: list each
    // (missing object, holder) pair once.
    let mut pairs: Vec<&MissingReference> = missing.iter().collect();
    pairs.sort_by_key(|m| (m.missing, m.holder));
    pairs.dedup_by_key(|m| (m.missing, m.holder));
    let mut distinct: Vec<_> = pairs.iter().map(|m| m.missing).collect();
    distinct.dedup();
    let mut s = format!(
        "{} object(s) are missing from the repository, referenced {} time(s) \
         (run `git fsck` on the source; a partial clone needs its missing objects fetched first):",
        distinct.len(),
        pairs.len()
    );
    for m in pairs.iter().take(SHOWN) {
        s.push_str(&format!(
            "\n  {} ({} of {} {})",
            m.missing,
            role_name(m.role),
            m.holder_kind,
            m.holder
        ));
    }
    if pairs.len() > SHOWN {
        s.push_str(&format!("\n  ... and {} more", pairs.len() - SHOWN));
    }
    s
}

/// How a reference is described to users.
pub fn role_name(role: ReferenceRole) -> &'static str {
    match role {
        ReferenceRole::TreeEntry { gitlink: true } => "gitlink entry",
        ReferenceRole::TreeEntry { gitlink: false } => "entry",
        ReferenceRole::CommitTree => "tree",
        ReferenceRole::Parent => "parent",
        ReferenceRole::MergetagObject => "mergetag object",
        ReferenceRole::TagObject => "target",
    }
}
