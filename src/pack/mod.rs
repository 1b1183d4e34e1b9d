//! Pack files: reading `.idx` (v1, v2) and `.pack` (v2, v3) files, applying
//! deltas, random access with a delta base cache, and whole-pack parallel
//! decoding over the delta trees (gitformat-pack); `write`: SHA-256 (or
//! SHA-1) `.pack`, `.idx` v2 and `.rev` files.

mod cache;
mod check;
pub(crate) mod checksum;
mod data;
mod delta;
mod dir;
mod entry;
mod error;
mod idx;
mod layout;
pub mod reach;
mod resolve;
mod traverse;
pub mod write;

pub use cache::DeltaCache;
pub use check::{crc_mismatches, verify_pack};
pub use data::PackFile;
pub use delta::{apply_delta, delta_sizes};
pub use dir::{list_packs, remove_pack};
pub use entry::{Entry, EntryKind};
pub use error::{DeltaError, IdxError, PackError};
pub use idx::IndexFile;
pub use layout::PackLayout;
pub use resolve::{ExternalBase, MAX_CHAIN_DEPTH, Pack};
pub use traverse::{BatchLimits, SharedExternalBase, TraversalPlan, Visit};
