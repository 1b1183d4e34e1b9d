//! The pack data (`.pack`).
//!
//! Read: the mapped file and its entries (`file.rs`, `entry.rs`), random
//! access through delta chains (`resolve.rs`, with the delta base cache
//! of `cache.rs`), every object decoded once in parallel over the delta
//! trees (`traverse.rs`), the entries by offset (`layout.rs`), the
//! whole-file checks (`check.rs`). Written: `write/`. Folded, packs copied
//! into one: `fold/`.

pub(crate) mod cache;
pub(crate) mod check;
pub(crate) mod entry;
pub(crate) mod file;
pub(crate) mod fold;
pub(crate) mod layout;
pub(crate) mod resolve;
pub(crate) mod traverse;
pub(crate) mod write;
