//! git-rehash: convert a SHA-1 Git repository into a SHA-256 one.
//!
//! Module map, bottom up (docs/architecture.md; a layer calls only those
//! below it):
//! - [`hash`]: hash kinds and object ids; [`bytes`]: common prefixes.
//! - [`object`]: object kinds, the `"<type> <len>\0"` framing, naming
//!   (sha1dc / SHA-256), the ids an object references.
//! - [`zlib`]: bounded inflation and one-shot deflation.
//! - [`durable`], [`flock`], [`progress`], [`gitconfig`]: durable files,
//!   the run's lock, progress callbacks, git's config syntax.
//! - [`pipeline`]: what both pipelines run on: stop points, interruption,
//!   chunking, the kinds of stop every error answers with.
//! - [`pack`]: `.idx`/`.pack` read and written, deltas, the delta search,
//!   the bitmap and the commit-graph.
//! - [`loose`]: loose objects.
//! - [`translate`]: byte-level SHA-1 <-> SHA-256 rewriting of trees,
//!   commits, tags.
//! - [`refs`]: refs, packed-refs, HEAD, reflogs, reftables: read and
//!   translate.
//! - [`repo`]: SOURCE found and checked; every path inside DEST and MIRROR.
//! - [`idmap`]: the SQLite SHA-1 <-> SHA-256 map.
//! - [`gitlink_maps`]: the pairs of gitlink targets (submodule commits),
//!   from `--submodule-map` files, surrogates and DEST's record of them.
//! - [`textmap`]: rewriting SHA-1 names quoted in free text (no SQLite).
//! - [`attest`]: signed statements of a conversion, made and checked.
//! - [`convert`]: the orchestration of a whole conversion.
//! - [`verify`]: an independent check of a finished conversion.
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
mod testing;
pub mod textmap;
pub mod translate;
pub mod verify;
mod worker_pool;
pub mod zlib;
