//! Error types of the pack layer, one per operation: reading index files,
//! reading pack data (entry parsing, inflation, delta resolution), applying
//! deltas, and writing packs and their indexes. Every variant names the
//! file and the offset or id it is about.

use std::path::PathBuf;

use crate::hash::{HashKind, ObjectId};

/// A `.idx` file that cannot be opened or does not follow gitformat-pack.
#[derive(Debug, thiserror::Error)]
pub enum IdxError {
    #[error("cannot read pack index {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("pack index {path} is too small ({len} bytes)")]
    TooSmall { path: PathBuf, len: u64 },
    #[error("pack index {path} is version {version}, which is not supported")]
    UnsupportedVersion { path: PathBuf, version: u32 },
    #[error("pack index {path} has a non-monotonic fanout table at entry {index}")]
    NonMonotonicFanout { path: PathBuf, index: usize },
    #[error("pack index {path} has {len} bytes, expected {min}..={max} for {count} objects")]
    WrongSize {
        path: PathBuf,
        len: u64,
        count: u32,
        min: u64,
        max: u64,
    },
    #[error(
        "pack index {path}: names are not sorted or not in their fanout bucket at position {index}"
    )]
    Unsorted { path: PathBuf, index: u32 },
    #[error(
        "pack index {path}: entry {index} refers to 64-bit offset slot {slot}, but the table has {slots}"
    )]
    BadLargeOffset {
        path: PathBuf,
        index: u32,
        slot: u32,
        slots: u64,
    },
    #[error("pack index {path}: trailing checksum does not match its content")]
    ChecksumMismatch { path: PathBuf },
}

/// A `.pack` file, or one of its entries, that cannot be decoded.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    #[error("cannot read pack {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Idx(#[from] IdxError),
    #[error("pack {path} is truncated at offset {offset}")]
    Truncated { path: PathBuf, offset: u64 },
    #[error("{path} is not a pack file (bad magic)")]
    BadMagic { path: PathBuf },
    #[error("pack {path} is version {version}, which is not supported")]
    UnsupportedVersion { path: PathBuf, version: u32 },
    #[error("pack {path} claims {count} objects but has only {len} bytes")]
    ImplausibleCount { path: PathBuf, count: u32, len: u64 },
    #[error("pack {path}: offset {offset} is not inside the object data")]
    OffsetOutOfRange { path: PathBuf, offset: u64 },
    #[error("pack {path}: entry at offset {offset} has invalid type code {code}")]
    BadEntryType {
        path: PathBuf,
        offset: u64,
        code: u8,
    },
    #[error("pack {path}: entry at offset {offset} has an overflowing size or base offset")]
    BadEntryHeader { path: PathBuf, offset: u64 },
    #[error("pack {path}: zlib error in entry at offset {offset}: {reason}")]
    Zlib {
        path: PathBuf,
        offset: u64,
        reason: String,
    },
    #[error(
        "pack {path}: entry at offset {offset} inflates to {actual} bytes, header says {expected}"
    )]
    SizeMismatch {
        path: PathBuf,
        offset: u64,
        expected: u64,
        /// The inflated size, or a lower bound of it when the stream was
        /// longer than declared (inflation stops there).
        actual: u64,
    },
    #[error(
        "pack {path}: entry at offset {offset} declares {size} bytes, more than this machine can address"
    )]
    TooLarge {
        path: PathBuf,
        offset: u64,
        size: u64,
    },
    #[error("pack {path}: bad delta in entry at offset {offset}")]
    Delta {
        path: PathBuf,
        offset: u64,
        #[source]
        source: DeltaError,
    },
    #[error(
        "pack {path}: delta at offset {offset} has base offset {base_offset}, which is not an earlier entry"
    )]
    BaseOutOfRange {
        path: PathBuf,
        offset: u64,
        base_offset: u64,
    },
    #[error(
        "pack {path}: delta at offset {offset} needs base {base}, found neither in the pack nor outside"
    )]
    MissingBase {
        path: PathBuf,
        offset: u64,
        base: ObjectId,
    },
    #[error("pack {path}: delta chain at offset {offset} is deeper than {max_depth} (or cyclic)")]
    ChainTooDeep {
        path: PathBuf,
        offset: u64,
        max_depth: usize,
    },
    #[error("pack {path}: delta at offset {offset} is part of a REF_DELTA cycle")]
    DeltaCycle { path: PathBuf, offset: u64 },
    #[error("pack {path}: two index entries point at offset {offset}")]
    DuplicateOffset { path: PathBuf, offset: u64 },
    #[error("pack {path}: trailing checksum does not match its content")]
    ChecksumMismatch { path: PathBuf },
    #[error("pack {pack} does not belong to index {idx}: {reason}")]
    IdxPackMismatch {
        idx: PathBuf,
        pack: PathBuf,
        reason: String,
    },
    #[error("pack {path}: byte range {start}..{end} is outside the file")]
    RangeOutOfBounds { path: PathBuf, start: u64, end: u64 },
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
}

/// A delta (git's patch-delta input) that cannot be applied. Positions
/// (`at`) are byte offsets inside the inflated delta.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeltaError {
    #[error("delta header is truncated or overflows")]
    BadHeader,
    #[error("delta expects a base of {expected} bytes, the base has {actual}")]
    BaseSizeMismatch { expected: u64, actual: u64 },
    #[error("delta result size {size} cannot be addressed on this machine")]
    TooLarge { size: u64 },
    #[error("reserved delta opcode 0 at byte {at}")]
    ReservedOpcode { at: usize },
    #[error("delta instruction at byte {at} is truncated")]
    Truncated { at: usize },
    #[error("copy at byte {at} reads {size} bytes at {offset}, past the base end {base_len}")]
    CopyOutOfBase {
        at: usize,
        offset: u64,
        size: u64,
        base_len: u64,
    },
    #[error("instruction at byte {at} writes past the declared result size {expected}")]
    ResultOverflow { at: usize, expected: u64 },
    #[error("delta produced {actual} bytes, header says {expected}")]
    ResultSizeMismatch { expected: u64, actual: u64 },
}

/// Why a pack, index or reverse index could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PackWriteError {
    #[error("cannot write {}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    File(#[from] crate::durable::PathError),
    #[error("object {id} is added to the pack twice")]
    DuplicateObject { id: ObjectId },
    #[error("the pack header announces {expected} objects but {actual} were added")]
    CountMismatch { expected: u32, actual: u32 },
    #[error("object {id} is one more than the {expected} objects the pack header announces")]
    TooManyObjects { expected: u32, id: ObjectId },
    #[error("object id {id:?} is not a {expected} id")]
    WrongHashKind { id: ObjectId, expected: HashKind },
    #[error("zlib level {level} for object {id} is not in 0..=9")]
    InvalidLevel { id: ObjectId, level: u32 },
    #[error(
        "delta {id} at offset {offset}: base offset {base_offset} is not an earlier entry of this pack"
    )]
    BadDeltaBase {
        id: ObjectId,
        offset: u64,
        base_offset: u64,
    },
    #[error("index entries are not sorted by id: {id} follows a larger id")]
    UnsortedEntries { id: ObjectId },
    #[error("{count} entries do not fit one pack index (at most 4294967295)")]
    TooManyEntries { count: usize },
    #[error("an earlier write to {} failed; the pack is incomplete", path.display())]
    Broken { path: PathBuf },
    /// An input pack of a fold could not be read.
    #[error(transparent)]
    Read(#[from] PackError),
    #[error(
        "{}: delta {id} names base {base}, which none of the packs being folded holds",
        pack.display()
    )]
    MissingBase {
        id: ObjectId,
        base: ObjectId,
        pack: PathBuf,
    },
    #[error(
        "{}: the entry of {id} at offset {offset} does not match the CRC32 its index records",
        pack.display()
    )]
    DamagedEntry {
        id: ObjectId,
        pack: PathBuf,
        offset: u64,
    },
    #[error("delta {id} is part of a chain that never ends (a cycle of REF_DELTA bases)")]
    DeltaCycle { id: ObjectId },
}

impl PackWriteError {
    pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        move |source| PackWriteError::Io {
            path: path.to_owned(),
            source,
        }
    }
}
