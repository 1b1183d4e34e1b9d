//! git-rehash: convert a SHA-1 Git repository into a SHA-256 one.
//!
//! Module map (layers call only downward):
//! - [`hash`]: hash kinds, object ids, object naming (sha1dc / SHA-256).
//! - [`object`]: object kinds and the `"<type> <len>\0"` framing.
//! - [`translate`]: byte-level SHA-1 <-> SHA-256 rewriting of trees, commits, tags.
//! - [`pack`]: reading `.idx`/`.pack` files, delta application, writing packs.
//! - [`loose`]: loose objects.
//! - [`refs`]: refs, packed-refs, HEAD, reflogs: read and translate.
//! - [`idmap`]: the SQLite SHA-1 <-> SHA-256 map.
//! - [`pipeline`]: what both pipelines run on: stop points, interruption,
//!   chunking.
//! - [`gitlink_maps`]: the pairs of gitlink targets (submodule commits),
//!   from `--submodule-map` files, surrogates and DEST's record of them.
//! - [`convert`]: the orchestration of a whole conversion.
//! - [`textmap`]: rewriting SHA-1 names quoted in free text (no SQLite).
//! - [`verify`]: an independent check of a finished conversion.
//! - [`attest`]: signed statements of a conversion, made and checked.
//! - [`export`]: the way back: a SHA-256 repository's new history written
//!   into a SHA-1 mirror.
//! - `fuzzing`: entry points for the fuzz targets in `fuzz/` (hidden).

pub mod attest;
pub mod bytes;
pub mod convert;
pub mod durable;
pub mod export;
pub mod flock;
#[doc(hidden)]
pub mod fuzzing;
pub mod gitconfig;
pub mod gitlink_maps;
pub mod hash;
pub mod idmap;
pub mod loose;
pub mod object;
pub mod pack;
pub mod pipeline;
pub mod progress;
pub mod refs;
pub mod repo;
#[cfg(test)]
mod test_git;
pub mod textmap;
pub mod translate;
pub mod verify;
mod worker_pool;
pub mod zlib;
