//! What a conversion did: [`ConvertOutcome`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::hash::ObjectId;
use crate::object::ObjectKind;
use crate::pack::reach::ReachSummary;
use crate::refs::RefSelection;

/// What a finished conversion did.
#[derive(Debug, Default, Clone)]
pub struct ConvertOutcome {
    pub dest: PathBuf,
    pub map_path: PathBuf,
    /// Objects this run converted and wrote, by type; they add up to
    /// `objects_converted`.
    pub objects_by_kind: BTreeMap<ObjectKind, u64>,
    /// Objects SOURCE stores: `objects_known + objects_shared +
    /// objects_converted + objects_left_out`.
    pub objects_listed: u64,
    /// Objects SOURCE stores that earlier runs converted: those with map
    /// rows, and those an interrupted run wrote into segments whose rows
    /// waited for its blobs (`resume/adopted.rs`).
    pub objects_known: u64,
    /// Of `objects_known`, those an interrupted run wrote into segments
    /// this run folded (resumed, not written again).
    pub objects_carried: u64,
    /// Objects SOURCE stores that the pool's conversion holds
    /// (`--shared-with`): neither copied nor given map rows.
    pub objects_shared: u64,
    /// Objects this run converted and wrote.
    pub objects_converted: u64,
    /// Objects this run's scan decoded (those without a row, and those of
    /// an interrupted run's segments, unless its scan checkpoint holds
    /// them).
    pub objects_read: u64,
    /// Objects SOURCE holds that the ref selection does not reach: not
    /// converted.
    pub objects_left_out: u64,
    /// The refs this run carried (`--refs`, `--exclude-refs`,
    /// `--reachable-only`, or DEST's record); `None`: every object.
    pub selection: Option<RefSelection>,
    /// SOURCE's refs the selection leaves out.
    pub refs_left_out: usize,
    /// Said when the selection differs from the one DEST recorded.
    pub selection_note: Option<String>,
    /// Objects without a row whose scan an interrupted run had finished
    /// (taken from its checkpoint instead of being decoded again).
    pub objects_restored: u64,
    pub bytes_inflated: u64,
    /// Packs this run added to DEST (one, or none when it had nothing new
    /// to write), and their total size.
    pub packs_written: u32,
    /// Segments this run wrote on the way (checkpoints, folded into the
    /// pack at the end).
    pub segments_written: u32,
    pub pack_size: u64,
    /// DEST's commit-graph and reachability bitmap.
    pub serving: ServingIndexes,
    pub blobs_copied_compressed: u64,
    pub unknown_headers: BTreeMap<String, u64>,
    /// Commits this run translated with a mergetag kept verbatim
    /// (`--unmapped-mergetags=verbatim`).
    pub verbatim_mergetag_commits: u64,
    pub refs_written: usize,
    /// Refs of DEST removed because SOURCE no longer has them.
    pub refs_deleted: usize,
    pub reflog_entries_dropped: usize,
    pub pseudo_refs_dropped: Vec<String>,
    /// Whether DEST held an earlier run's work (resumed or updated).
    pub continued: bool,
    pub interop: InteropOutcome,
    /// Submodules converted first (`--recurse-submodules`, `--submodule`),
    /// nested ones included, innermost first.
    pub submodules: Vec<SubmoduleOutcome>,
    /// Worker threads the run used (`--jobs`; all cores by default).
    pub workers: usize,
    pub elapsed: Duration,
}

/// A submodule converted before its superproject.
#[derive(Debug, Clone)]
pub struct SubmoduleOutcome {
    /// Its name (the `modules/<name>` directory), with the names of the
    /// submodules it is nested in: `mid/leaf`.
    pub name: String,
    pub source: PathBuf,
    pub outcome: ConvertOutcome,
}

/// The serving indexes a run wrote, and the time they took.
pub type ServingIndexes = Option<(ReachSummary, Duration)>;

/// What the interop hooks did.
#[derive(Debug, Default, Clone)]
pub struct InteropOutcome {
    /// Distinct gitlink targets named through submodule maps.
    pub gitlinks_mapped: usize,
    /// Distinct gitlink targets given a surrogate name.
    pub gitlink_surrogates: usize,
    /// Lines written to `objects/loose-object-idx` (`--git-compat-map`).
    pub compat_map_pairs: Option<u64>,
    /// `--rekey-notes`: each notes ref and its new commit.
    pub notes_rekeyed: Vec<RekeyedRef>,
}

/// What re-keying did to one notes ref.
#[derive(Clone, Debug)]
pub struct RekeyedRef {
    pub name: String,
    /// The new commit the ref now names.
    pub commit: ObjectId,
    /// Notes moved to the SHA-256 name of their object.
    pub notes: usize,
    /// Notes whose object SOURCE does not have: kept at their SHA-1 path
    /// (git in DEST ignores them, as it ignores any non-note entry).
    pub kept_unmapped: usize,
}
