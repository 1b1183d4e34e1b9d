//! Writing a pack: a `.pack` (version 2) streamed entry by entry, then its
//! `.idx` (version 2) and `.rev` (RIDX version 1), published by temporary
//! file + rename as `pack-<hex of trailer>.{pack,rev,idx}`.
//!
//! Mirrors git's `pack-write.c` (`write_idx_file`, `write_rev_file`,
//! `finish_tmp_packfile`); formats as in `Documentation/gitformat-pack.txt`.
//!
//! Memory: the writer keeps one index entry (id, offset, CRC32; 48 bytes)
//! per object; bodies and zlib streams pass straight through to the file.

pub(crate) mod encode;
pub(crate) mod pack_writer;
pub(crate) mod publish;
pub(crate) mod stream;
