//! Corrupt or hostile input: an object or file of SOURCE that is not what
//! git would accept. Each message names the object, the file and, where
//! there is one, the offset.

use std::path::PathBuf;

use crate::hash::ObjectId;
use crate::object::ObjectKind;

#[derive(Debug, thiserror::Error)]
pub enum CorruptInput {
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
    #[error("object {id} is listed in a pack index but was never decoded from its pack")]
    NotDecoded { id: ObjectId },
    #[error("{kind} {id} is malformed: {reason}")]
    Malformed {
        id: ObjectId,
        kind: ObjectKind,
        reason: String,
    },
    #[error("object {id} is part of a reference cycle")]
    ReferenceCycle { id: ObjectId },
    #[error(
        "SOURCE's map {} is not SOURCE's own: {reason}; move SOURCE's rehash/ directory aside to name objects by translation alone",
        map.display()
    )]
    SourceMap { map: PathBuf, reason: String },
    #[error(
        "{kind} {id}: SOURCE's own map {} names it {recorded}, but its translation is named {named}: the map and SOURCE's objects disagree{}; restore the map, or move SOURCE's rehash/ directory aside to name objects by translation alone",
        map.display(),
        if *others > 0 { format!(" (so do {others} more objects)") } else { String::new() }
    )]
    SourceMapDisagrees {
        map: PathBuf,
        id: ObjectId,
        kind: ObjectKind,
        recorded: ObjectId,
        named: ObjectId,
        /// More objects whose rows disagree.
        others: usize,
    },
    #[error("cannot translate {kind} {id}")]
    Translate {
        id: ObjectId,
        kind: ObjectKind,
        #[source]
        source: crate::translate::TranslateError,
    },
}
