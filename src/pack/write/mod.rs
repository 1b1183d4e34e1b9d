//! Writing packs: a `.pack` (version 2) streamed entry by entry, then its
//! `.idx` (version 2) and `.rev` (RIDX version 1), published by temporary
//! file + rename as `pack-<hex of trailer>.{pack,rev,idx}`.
//!
//! Mirrors git's `pack-write.c` (`write_idx_file`, `write_rev_file`,
//! `finish_tmp_packfile`) and `csum-file.c`; formats as in
//! `Documentation/gitformat-pack.txt`. The hash
//! kind (SHA-256 for git-rehash output, SHA-1 also works) decides the id
//! width in the index, the trailers and the `.rev` hash id.
//!
//! Memory: the writer keeps one [`IndexEntry`] (id, offset, CRC32; 48 bytes)
//! per object; bodies and zlib streams pass straight through to the file.

mod delta_encode;
mod encode;
mod fold;
mod fold_write;
mod hashing_writer;
mod idx_writer;
mod name_hash;
mod pack_stream;
mod pack_writer;
mod rev_writer;
mod sketch;
#[cfg(test)]
pub(crate) mod test_rng;
#[cfg(test)]
pub(crate) mod test_trees;
mod tree_delta;
mod window;

use std::path::PathBuf;

use crate::hash::{HashKind, ObjectId};

pub use delta_encode::{DeltaIndex, encode_delta};
pub use encode::{
    MAX_ENTRY_HEADER_LEN, MAX_OFS_LEN, OBJ_OFS_DELTA, OBJ_REF_DELTA, encode_entry_header,
    encode_offset_varint, encode_ofs_distance,
};
pub use fold::{OrderKey, fold_packs};
pub use hashing_writer::HashingWriter;
pub use idx_writer::{IndexEntry, write_idx_v2};
pub use name_hash::{
    NameHashVersion, component_v2 as name_component_hash_v2, join_v2 as join_name_hash_v2,
    pack_name_hash, pack_name_hash_v2,
};
pub use pack_writer::{PackOutcome, PackWriter, WrittenEntry};
pub use rev_writer::write_rev;
pub use sketch::Sketch;
pub use tree_delta::tree_delta;
pub use window::{
    Choice, Found, MIN_SIZE as WINDOW_MIN_SIZE, NOT_IN_WINDOW, Tries, Window, WindowObject,
    WindowOptions, first_limit, search as window_search,
};

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
    Read(#[from] crate::pack::PackError),
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
