//! Why a translation was refused. Each variant carries what a user needs to
//! find the offending object part; messages follow git's lowercase style.

use crate::hash::{HashKind, ObjectId};
use crate::object::ReferencesError;

/// A tree, commit or tag that cannot be translated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    /// A tree entry (often a gitlink) whose id has no pair in the map.
    #[error("failed to map tree entry {name:?} (mode {mode}) for {id}")]
    UnmappedTreeEntry {
        id: ObjectId,
        /// The entry name, lossily decoded.
        name: String,
        mode: String,
    },
    /// A `tree`, `parent`, tag `object` or `mergetag object` id without a pair.
    #[error("unable to map {field} {id}")]
    UnmappedId { field: &'static str, id: ObjectId },
    /// The mapper answered with an id of the wrong hash kind (a caller bug).
    #[error("map returned {mapped:?} for {id}, expected a {expected} id")]
    MappedKindMismatch {
        id: ObjectId,
        mapped: ObjectId,
        expected: HashKind,
    },
    #[error("failed to decode tree entry at offset {offset}: {reason}")]
    MalformedTree { offset: usize, reason: &'static str },
    #[error("bad commit: {reason}")]
    MalformedCommit { reason: String },
    /// Only with `strict_headers`: git refuses commits with unknown fields.
    #[error("unknown commit header field {name:?}")]
    UnknownHeader { name: String },
    #[error("bogus tag object: {reason}")]
    MalformedTag { reason: String },
}

impl From<ReferencesError> for TranslateError {
    fn from(e: ReferencesError) -> Self {
        match e {
            ReferencesError::MalformedTree { offset, reason } => {
                TranslateError::MalformedTree { offset, reason }
            }
            ReferencesError::MalformedCommit { reason } => {
                TranslateError::MalformedCommit { reason }
            }
            ReferencesError::MalformedTag { reason } => TranslateError::MalformedTag { reason },
        }
    }
}
