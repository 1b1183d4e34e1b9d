//! What an export did: [`ExportOutcome`].

use std::collections::BTreeMap;
use std::time::Duration;

use crate::object::ObjectKind;

/// What a finished export did.
#[derive(Debug, Default, Clone)]
pub struct ExportOutcome {
    /// Objects written into MIRROR, by type.
    pub written_by_kind: BTreeMap<ObjectKind, u64>,
    /// Objects made in DEST since its conversion whose SHA-1 names this
    /// run worked out and recorded in DEST's map.
    pub pairs_recorded: u64,
    /// Objects of DEST that --rekey-notes created (no SHA-1): not exported.
    pub created_skipped: u64,
    /// Blobs copied as DEST's compressed bytes (whole or as deltas).
    pub blobs_copied_compressed: u64,
    /// The pack moved into MIRROR (none when there was nothing to write).
    pub pack: Option<std::path::PathBuf>,
    pub pack_size: u64,
    /// Segments this run wrote on the way (checkpoints, folded at the end).
    pub segments_written: u32,
    pub refs_created: usize,
    pub refs_updated: usize,
    pub refs_deleted: usize,
    /// MIRROR refs left as they are: outside what DEST has.
    pub refs_left_alone: Vec<String>,
    /// Gitlink targets given a surrogate SHA-1 (`--unmapped-gitlinks=placeholder`).
    pub gitlink_surrogates: u64,
    pub elapsed: Duration,
}

impl ExportOutcome {
    pub fn objects_written(&self) -> u64 {
        self.written_by_kind.values().sum()
    }
}
