//! Pack files (gitformat-pack), laid out by format, then by what is done
//! with it:
//!
//! - `index/`: the `.idx` read (versions 1 and 2) and written (version 2),
//!   and the `.rev` written (RIDX version 1);
//! - `data/`: the `.pack` read (entries, random access through delta
//!   chains with a delta base cache, whole-pack parallel decoding over the
//!   delta trees, the whole-file checks), written (version 2, streamed
//!   entry by entry, published with its `.idx` and `.rev` as
//!   `pack-<hex of trailer>.{pack,rev,idx}`), and folded (packs copied
//!   into one);
//! - `delta/`: git's delta format applied and encoded, and deltas between
//!   trees;
//! - `delta_search/`: which object is diffed against which (the sliding
//!   window of `pack-objects`, resemblance sketches, name hashes);
//! - `reach/`: the reachability indexes of a pack, `.bitmap` and
//!   `commit-graph`;
//! - `hashfile.rs`: the one checksummed-file writer, `dir.rs`: the packs of
//!   a directory, `error.rs`: the errors of all of the above.
//!
//! The hash kind (SHA-256 for git-rehash output, SHA-1 for `export-sha1`)
//! is a parameter throughout: it decides the id width in the index, the
//! trailers and the `.rev` hash id.

mod data;
mod delta;
mod delta_search;
mod dir;
mod error;
pub(crate) mod hashfile;
mod index;
pub mod reach;

pub use data::cache::DeltaCache;
pub use data::check::{crc_mismatches, verify_pack};
pub use data::entry::{Entry, EntryKind, OBJ_OFS_DELTA, OBJ_REF_DELTA};
pub use data::file::PackFile;
pub use data::fold::fold_packs;
pub use data::fold::plan::OrderKey;
pub use data::layout::PackLayout;
pub use data::resolve::{ExternalBase, MAX_CHAIN_DEPTH, Pack};
pub use data::traverse::{BatchLimits, SharedExternalBase, TraversalPlan, Visit};
pub use data::write::encode::{
    MAX_ENTRY_HEADER_LEN, MAX_OFS_LEN, encode_entry_header, encode_offset_varint,
    encode_ofs_distance,
};
pub use data::write::pack_writer::{PackWriter, WrittenEntry};
pub use data::write::publish::PackOutcome;
pub use delta::apply::{apply_delta, delta_sizes};
pub use delta::encode::{DeltaIndex, encode_delta};
pub use delta::tree::tree_delta;
pub use delta_search::name_hash::{
    NameHashVersion, component_v2 as name_component_hash_v2, join_v2 as join_name_hash_v2,
    pack_name_hash, pack_name_hash_v2,
};
pub use delta_search::sketch::Sketch;
pub use delta_search::window::{
    Choice, Found, MIN_SIZE as WINDOW_MIN_SIZE, NOT_IN_WINDOW, Tries, Window, WindowObject,
    WindowOptions, first_limit, search as window_search,
};
pub use dir::{list_packs, remove_pack};
pub use error::{DeltaError, IdxError, PackError, PackWriteError};
pub use index::read::IndexFile;
pub use index::reverse::write_rev;
pub use index::write::{IndexEntry, write_idx_v2};
