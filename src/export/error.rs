//! Everything that can stop an export: a refusal (DEST or MIRROR cannot
//! be exported as they are; the message says what to do), corrupt DEST
//! content (named by object and file), a failure of the machine or the
//! map database (a re-run resumes), and an interruption.

use std::path::PathBuf;

use crate::durable::PathError;
use crate::gitlink_maps::GitlinkMapError;
use crate::hash::ObjectId;
use crate::object::ObjectKind;
use crate::pipeline::ErrorKind;
use crate::pipeline::Interrupted;
use crate::repo::SourceError;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Refused(#[from] ExportRefusal),
    /// Boxed: errors travel by value through every phase.
    #[error(transparent)]
    Corrupt(Box<CorruptDest>),
    /// MIRROR is not a repository this export can write into.
    #[error(
        "MIRROR cannot receive the export: it must be a SHA-1 repository, a clone of the \
         original SOURCE or an empty one (`git init --bare MIRROR`)"
    )]
    Mirror(#[source] SourceError),
    /// A `--submodule-map` file, or DEST's record of gitlink pairs.
    #[error("gitlink pairs")]
    GitlinkMaps(#[source] GitlinkMapError),
    #[error(transparent)]
    File(#[from] PathError),
    #[error(transparent)]
    PackWrite(#[from] crate::pack::PackWriteError),
    #[error(transparent)]
    Refs(#[from] crate::refs::RefsError),
    #[error(transparent)]
    Map(#[from] crate::idmap::IdMapError),
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

impl ExportError {
    /// What kind of stop it is (the CLI's exit status follows it): a DEST
    /// or MIRROR that is not one is the command's mistake, a lock is
    /// released when its run ends, a refusal or damage needs a decision.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ExportError::Refused(ExportRefusal::NotAConversion { .. }) => ErrorKind::Usage,
            ExportError::Refused(ExportRefusal::Locked { .. }) => ErrorKind::Failed,
            ExportError::Refused(_) => ErrorKind::Refused,
            ExportError::Corrupt(_) => ErrorKind::Corrupt,
            ExportError::Mirror(e) => e.kind(),
            ExportError::GitlinkMaps(e) => e.kind(),
            ExportError::Map(e) => e.kind(),
            ExportError::File(_) | ExportError::PackWrite(_) | ExportError::Refs(_) => {
                ErrorKind::Failed
            }
            ExportError::Interrupted(_) => ErrorKind::Interrupted,
        }
    }
}

impl From<CorruptDest> for ExportError {
    fn from(e: CorruptDest) -> Self {
        ExportError::Corrupt(Box::new(e))
    }
}

/// An object of DEST that cannot be exported because DEST is damaged.
#[derive(Debug, thiserror::Error)]
pub enum CorruptDest {
    #[error("DEST object {id} cannot be read ({})", file.display())]
    Unreadable {
        id: ObjectId,
        file: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error(
        "DEST object {id} ({}) is corrupt: its {kind} content hashes to {actual}",
        file.display()
    )]
    NameMismatch {
        id: ObjectId,
        kind: ObjectKind,
        actual: ObjectId,
        file: PathBuf,
    },
    #[error("DEST object {id} ({kind}, {}) is malformed: {reason}", file.display())]
    Malformed {
        id: ObjectId,
        kind: ObjectKind,
        file: PathBuf,
        reason: String,
    },
    #[error("DEST cannot be read: {reason}")]
    Store { reason: String },
}

/// DEST or MIRROR as they are cannot be exported; the message says why and
/// what to do.
#[derive(Debug, thiserror::Error)]
pub enum ExportRefusal {
    #[error("{} cannot be exported: {reason}", path.display())]
    NotAConversion { path: PathBuf, reason: String },
    /// MIRROR is a SHA-1 repository, but one the export cannot write as
    /// it is.
    #[error("MIRROR {} cannot receive the export: {reason}", path.display())]
    MirrorLayout { path: PathBuf, reason: String },
    #[error(
        "another git-rehash is using {} (it holds the lock file {}); wait for it to finish or stop it first",
        repo.display(),
        lock.display()
    )]
    Locked { repo: PathBuf, lock: PathBuf },
    #[error("{}", diverged_message(.0))]
    Diverged(Vec<DivergedRef>),
    #[error("{}", missing_message(.0))]
    MissingObjects(Vec<MissingObject>),
    #[error("{}", gitlinks_message(.0))]
    UnmappedGitlinks(Vec<UnmappedGitlink>),
    #[error(
        "DEST object {id} ({kind}) stands on {created}, which --rekey-notes created in DEST and which has no SHA-1 name; \
         notes added on top of re-keyed notes cannot be exported (docs/interop.md)"
    )]
    OnCreated {
        id: ObjectId,
        kind: ObjectKind,
        created: ObjectId,
    },
    #[error("DEST object {id} ({kind}) cannot be translated to SHA-1: {reason}")]
    Untranslatable {
        id: ObjectId,
        kind: ObjectKind,
        reason: String,
    },
    #[error(
        "DEST object {id} ({kind}) cannot be written back: translated to SHA-1 it is {actual}, \
         but the map pairs it with {mapped}, which MIRROR does not have. Its SHA-1 form is not \
         recoverable from its SHA-256 form (docs/translation.md, \"Round trips\"); export into a \
         clone of the original SHA-1 repository instead, which has it"
    )]
    Irreversible {
        id: ObjectId,
        kind: ObjectKind,
        actual: ObjectId,
        mapped: ObjectId,
    },
    #[error(
        "the gitlink maps (DEST's rehash/gitlinks.txt and --submodule-map) pair {sha256} with two \
         SHA-1 names, {} and {}; the way back needs one",
        sha1s[0],
        sha1s[1]
    )]
    ContradictingGitlinkMaps {
        sha256: ObjectId,
        sha1s: [ObjectId; 2],
    },
    #[error("DEST ref {refname} names {id}, which DEST does not have")]
    RefTargetMissing { refname: String, id: ObjectId },
}

/// A ref both sides moved: MIRROR's value is not an object DEST has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DivergedRef {
    pub name: String,
    /// MIRROR's value, which the map does not know.
    pub mirror: ObjectId,
}

/// An object DEST's new history references that DEST does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingObject {
    pub id: ObjectId,
    pub referenced_by: ObjectId,
}

/// A gitlink (submodule commit) of a new tree that no map names in SHA-1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmappedGitlink {
    pub target: ObjectId,
    /// The entry's name, and the tree holding it.
    pub path: String,
    pub tree: ObjectId,
}

/// Lines shown of a long list; the rest are counted.
const SHOWN: usize = 10;

fn listed<T>(items: &[T], line: impl Fn(&T) -> String) -> String {
    let mut text: String = items
        .iter()
        .take(SHOWN)
        .map(|i| format!("\n  {}", line(i)))
        .collect();
    if items.len() > SHOWN {
        text.push_str(&format!("\n  ... and {} more", items.len() - SHOWN));
    }
    text
}

fn diverged_message(refs: &[DivergedRef]) -> String {
    format!(
        "both sides gained commits: {} ref(s) of MIRROR name objects DEST does not have, so \
         commits were made in MIRROR that the SHA-256 repository never saw. git-rehash does not \
         guess which side wins and changed nothing; bring those commits into DEST first, or \
         remove the refs from MIRROR (docs/interop.md, \"When both sides gain commits\"):{}",
        refs.len(),
        listed(refs, |r| format!("{} = {}", r.name, r.mirror))
    )
}

fn missing_message(missing: &[MissingObject]) -> String {
    format!(
        "{} object(s) that DEST's new history references are not in DEST (it is incomplete); \
         nothing was written:{}",
        missing.len(),
        listed(missing, |m| format!(
            "{} (referenced by {})",
            m.id, m.referenced_by
        ))
    )
}

fn gitlinks_message(gitlinks: &[UnmappedGitlink]) -> String {
    format!(
        "{} gitlink(s) of DEST's new trees name submodule commits without a SHA-1 name; export \
         the submodule first and pass its map (--submodule-map SUB/rehash/map.sqlite), or use \
         --unmapped-gitlinks=placeholder (lossy). Nothing was written:{}",
        gitlinks.len(),
        listed(gitlinks, |g| format!(
            "{} at '{}' in tree {}",
            g.target, g.path, g.tree
        ))
    )
}
