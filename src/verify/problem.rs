//! What the verifier can find wrong, each naming the object, ref or file.

use std::path::PathBuf;

use crate::hash::ObjectId;
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
    #[error(
        "object {id} ({kind}) translates back to SHA-1 {actual}, but the map pairs it with {mapped}"
    )]
    Sha1Mismatch {
        id: ObjectId,
        kind: ObjectKind,
        mapped: ObjectId,
        actual: ObjectId,
    },
    #[error("object {id} ({kind}) cannot be translated back to SHA-1: {reason}")]
    Untranslatable {
        id: ObjectId,
        kind: ObjectKind,
        reason: String,
    },
    #[error("object {id} ({kind}) differs from the translation of SOURCE's {sha1}")]
    SourceMismatch {
        id: ObjectId,
        kind: ObjectKind,
        sha1: ObjectId,
    },
    #[error("map row {sha1} -> {sha256} ({kind}) has no object in DEST")]
    MissingObject {
        sha1: ObjectId,
        sha256: ObjectId,
        kind: ObjectKind,
    },
    #[error("object {sha256} ({kind}), recorded as created by the conversion, is not in DEST")]
    MissingCreated { sha256: ObjectId, kind: ObjectKind },
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
    #[error("object {sha1} of SOURCE has no row in the map")]
    SourceObjectUnmapped { sha1: ObjectId },
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
    #[error("shared pool: object {sha1} is {own} in DEST's map but {pool} in the pool's")]
    SharedConflict {
        sha1: ObjectId,
        own: ObjectId,
        pool: ObjectId,
    },
}
