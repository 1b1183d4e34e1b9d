//! Corrupt or hostile input: an object or file of SOURCE that is not what
//! git would accept. Each message names the object, the file and, where
//! there is one, the offset.

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
    #[error("cannot translate {kind} {id}")]
    Translate {
        id: ObjectId,
        kind: ObjectKind,
        #[source]
        source: crate::translate::TranslateError,
    },
}
