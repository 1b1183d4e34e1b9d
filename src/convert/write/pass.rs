//! What both write passes read: SOURCE's objects and where their packs'
//! entries are, the object table, and how to store what they write.

use std::path::Path;

use super::candidate_log::CandidateLog;
use super::delta_policy::DeltaOptions;
use super::output_depths::OutputDepths;
use super::search_tail::{Tail, WrittenTailError};
use crate::convert::error::{ConvertError, DestState};
use crate::convert::plan::source_pairs::SourcePairs;
use crate::convert::source_objects::inventory::Inventory;
use crate::convert::source_objects::table::ObjectTable;
use crate::object::ObjectKind;
use crate::pack::PackLayout;
use crate::progress::Progress;
use crate::translate::TranslateOptions;

/// One write pass's view of the run.
pub struct Pass<'a> {
    /// DEST, for the errors that name it.
    pub dest: &'a Path,
    pub inventory: &'a Inventory,
    /// Each source pack's entries by offset, in inventory order.
    pub layouts: &'a [PackLayout<'a>],
    pub table: &'a ObjectTable,
    pub translate: TranslateOptions,
    /// zlib level for what is compressed anew.
    pub level: u32,
    pub deltas: DeltaOptions,
    /// SOURCE's delta pairing.
    pub pairs: &'a SourcePairs,
    /// Whether objects an earlier run wrote may be delta bases: true while
    /// their segments await the same finish step as this run's; false once
    /// a finished conversion folded them into a pack of their own.
    pub bases_from_earlier_runs: bool,
    pub progress: &'a dyn Progress,
    /// `--candidate-log`: where the window search's choices are logged.
    pub log: Option<&'a CandidateLog>,
    /// The chain length of each object the map pass wrote.
    pub depths: &'a OutputDepths,
    /// The test hook's cap on objects per chunk, if set.
    pub chunk_objects: Option<usize>,
}

impl Pass<'_> {
    /// Objects per parallel chunk: `default`, or the test hook's cap.
    pub fn chunk(&self, default: usize) -> usize {
        self.chunk_objects.map_or(default, |cap| cap.min(default))
    }

    /// The base object `at` keeps from SOURCE's pairing, if it keeps one:
    /// a base [`Pass::may_be_base`] allows, and not where `--depth` cuts
    /// the chain.
    pub fn source_base(&self, at: u32) -> Option<u32> {
        let base = self.pairs.base(at)?;
        let kept = self.pairs.output_depth(at, self.deltas.depth) != 0;
        (self.deltas.reuse && kept && self.may_be_base(at, base)).then_some(base)
    }

    /// Whether object `base` may be the delta base of object `at` in this
    /// run's output: of the same kind, and one DEST's pack may hold (the
    /// shared pool's objects never are; an earlier run's only while its
    /// segments await the same finish step as this run's).
    pub fn may_be_base(&self, at: u32, base: u32) -> bool {
        self.table.kind(base) == self.table.kind(at)
            && !self.table.is_shared(base)
            && (self.bases_from_earlier_runs || self.table.is_planned(base))
    }

    /// SOURCE's delta base of object `at`, for the candidate log (whether
    /// or not the output keeps it).
    pub fn logged_source_base(&self, at: u32) -> Option<u32> {
        self.log.and(self.pairs.base(at))
    }

    /// The output chain length of object `at` when it keeps its source
    /// pairing (an upper bound: a chain may be cut earlier).
    pub fn output_depth(&self, at: u32) -> u32 {
        self.pairs.output_depth(at, self.deltas.depth)
    }

    /// The objects a resumed run's search starts from when it restarts
    /// after `before` (the pass's order up to there, written by an
    /// interrupted run: `search_tail.rs`): their bodies `fetch`ed, their
    /// lengths as `len` counts them, their chains read back from the
    /// segments.
    pub fn written_tail<B: AsRef<[u8]>>(
        &self,
        before: impl DoubleEndedIterator<Item = (u32, ObjectKind)>,
        fetch: impl Fn(u32) -> Result<B, ConvertError>,
        len: impl Fn(u32, &B) -> u64,
    ) -> Result<Tail<B>, ConvertError> {
        let opts = self.deltas.window_options();
        let depth = |at| self.depths.get(at);
        Tail::of_written(before, opts, depth, fetch, len).map_err(|e| match e {
            WrittenTailError::Read(e) => e,
            WrittenTailError::UnknownDepth(at) => DestState::Damaged {
                path: self.dest.to_path_buf(),
                reason: format!(
                    "the delta chain of object {}, written by an interrupted run, cannot be read back from its segments",
                    self.table.source_id(at)
                ),
            }
            .into(),
        })
    }
}
