//! What the verifier can find wrong, each naming the object, ref or file.

use std::path::PathBuf;

use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;

/// One mismatch. Any problem makes `git-rehash verify` exit non-zero.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("{path}: trailing checksum does not match the file's content")]
    FileChecksum { path: PathBuf },
    #[error("{path}: cannot be read: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error(
        "object {id}: its entry at offset {offset} of {path} does not match the CRC32 the .idx records"
    )]
    EntryCrc {
        id: ObjectId,
        path: PathBuf,
        offset: u64,
    },
    #[error("object {stored} ({kind}) hashes to {actual}: its stored bytes are corrupt")]
    NameMismatch {
        stored: ObjectId,
        kind: ObjectKind,
        actual: ObjectId,
    },
    #[error("object {id} ({kind}) is in DEST but has no row in the map")]
    NotInMap { id: ObjectId, kind: ObjectKind },
    #[error("object {id} is a {actual} but the map records type {mapped}")]
    KindMismatch {
        id: ObjectId,
        actual: ObjectKind,
        mapped: ObjectKind,
    },
    #[error("object {id} ({kind}) translates back to {actual}, but the map pairs it with {mapped}")]
    BackMismatch {
        id: ObjectId,
        kind: ObjectKind,
        mapped: ObjectId,
        actual: ObjectId,
    },
    #[error("object {id} ({kind}) cannot be translated back to {to}: {reason}")]
    Untranslatable {
        id: ObjectId,
        kind: ObjectKind,
        /// SOURCE's hash.
        to: HashKind,
        reason: String,
    },
    #[error("object {id} ({kind}) differs from the translation of SOURCE's {original}")]
    SourceMismatch {
        id: ObjectId,
        kind: ObjectKind,
        /// SOURCE's name of it.
        original: ObjectId,
    },
    #[error("map row {sha1} -> {sha256} ({kind}) has no object in DEST")]
    MissingObject {
        sha1: ObjectId,
        sha256: ObjectId,
        kind: ObjectKind,
    },
    #[error("object {name} ({kind}), recorded as created by the conversion, is not in DEST")]
    MissingCreated { name: ObjectId, kind: ObjectKind },
    #[error("the map names {id} in more than one row")]
    DuplicateRow { id: ObjectId },
    #[error("ref {name} names {id}, which is not an object of DEST")]
    DanglingRef { name: String, id: ObjectId },
    #[error("ref {name}: DEST has {found}, SOURCE's value translates to {expected}")]
    RefMismatch {
        name: String,
        expected: String,
        found: String,
    },
    #[error("ref {name} of SOURCE is missing in DEST (expected {expected})")]
    RefMissing { name: String, expected: String },
    #[error("ref {name} is in DEST ({found}) but not in SOURCE")]
    RefExtra { name: String, found: String },
    #[error("object {id} of SOURCE has no row in the map")]
    SourceObjectUnmapped { id: ObjectId },
    #[error("shared pool: {reason}")]
    SharedLayout { reason: String },
    #[error(
        "shared pool: row {sha1} -> {sha256} ({kind}) of {} has no object in the pool",
        map.display()
    )]
    SharedObjectMissing {
        sha1: ObjectId,
        sha256: ObjectId,
        kind: ObjectKind,
        map: PathBuf,
    },
    #[error("shared pool: object {original} is {own} in DEST's map but {pool} in the pool's")]
    SharedConflict {
        /// Its name in SOURCE's hash.
        original: ObjectId,
        own: ObjectId,
        pool: ObjectId,
    },
}
