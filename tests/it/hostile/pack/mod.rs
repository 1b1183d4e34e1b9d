//! Broken and hostile packs and pack indexes: every case ends in exit 1
//! with a message naming the file and the offset or object, no panic, and
//! SOURCE byte-identical (checked by `Source::refused`).
//!
//! The packs are built byte by byte (`support::raw_pack`), with correct
//! trailers and CRC32s unless the test is about those, so each test reaches
//! the check it is about.

mod deltas;
mod entries;
pub(super) mod file;
mod index;

use std::path::Path;

use crate::support::raw_pack::{PackPaths, RawEntry, blob_entry, write_pack};
use crate::support::watched_source::{Source, bare_repo};

const A: &[u8] = b"first blob\n";
const B: &[u8] = b"second blob, a bit longer than the first\n";

/// A repository whose only pack holds `entries`.
fn repo_with(label: &str, entries: &[RawEntry]) -> (Source, PackPaths) {
    let source = bare_repo(label);
    let paths = write_pack(&source.git_dir, entries);
    (source, paths)
}

/// A repository whose only pack holds the blobs [`A`] and [`B`].
fn two_blobs(label: &str) -> (Source, PackPaths) {
    repo_with(label, &[blob_entry(A), blob_entry(B)])
}

/// The file name, as error messages give it.
fn p(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}
