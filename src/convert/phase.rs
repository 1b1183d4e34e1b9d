//! Where a conversion may be killed by the test hook
//! `GIT_REHASH_TEST_KILL_AT` (`<phase>:<n>`, or `<n>` for the n-th point of
//! any phase): its kill points, by phase, in the order a run meets them.

/// Before the DEST skeleton or a resumed run's cleanup.
pub const START: &str = "start";
/// After each batch of the scan is checkpointed.
pub const SCAN_BATCH: &str = "scan-batch";
/// After what batches still going on recorded so far is checkpointed.
pub const SCAN_PART: &str = "scan-part";
/// After each object appended to an unfinished pack.
pub const OBJECT: &str = "object";
/// A segment's pack is renamed into place; its rows are not committed.
pub const PACK_RENAMED: &str = "pack-renamed";
/// Inside the SQLite transaction of a segment, before its commit.
pub const IN_COMMIT: &str = "in-commit";
/// After a segment's rows are committed.
pub const COMMITTED: &str = "committed";
/// The folded pack is renamed into place; the journal does not know it.
pub const FOLDED: &str = "folded";
/// The journal records the fold; the segments are not deleted yet.
pub const FOLD_RECORDED: &str = "fold-recorded";
/// SOURCE's refs written, DEST's own statement (`refs/rehash/attestation`)
/// not pointed at again yet; met only when DEST has one.
pub const STATEMENT_KEPT: &str = "statement-kept";
/// Refs written, stale refs not yet removed.
pub const REFS: &str = "refs";
/// Everything durable, `HEAD` and `config` not yet written.
pub const PUBLISH: &str = "publish";
