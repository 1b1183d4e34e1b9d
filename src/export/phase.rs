//! Where an export may be killed by the test hook
//! `GIT_REHASH_TEST_KILL_AT` (`<phase>:<n>`, or `<n>` for the n-th point of
//! any phase): its kill points, by phase, in the order a run meets them.

/// Both repositories are open and locked; nothing is done yet.
pub const START: &str = "start";
/// An object was appended to the open segment.
pub const OBJECT: &str = "object";
/// A segment was renamed into place.
pub const SEGMENT_RENAMED: &str = "segment-renamed";
/// A chunk's new pairs were committed to DEST's map.
pub const COMMITTED: &str = "committed";
/// The folded pack is written, not yet moved into MIRROR.
pub const FOLDED: &str = "folded";
/// The pack is in MIRROR; the segments are not deleted yet.
pub const MOVED_IN: &str = "moved-in";
/// MIRROR's refs are written; DEST's map index not rebuilt yet.
pub const REFS: &str = "refs";
