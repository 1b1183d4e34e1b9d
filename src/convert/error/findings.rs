//! What the scan finds that may refuse the conversion: references to
//! objects SOURCE does not have, gitlinks without a SHA-256 name, and
//! mergetags whose tagged object SOURCE does not have.

use crate::hash::ObjectId;
use crate::object::{ObjectKind, ReferenceRole};

/// A reference to an object the source does not have.
#[derive(Debug, Clone)]
pub struct MissingReference {
    pub holder: ObjectId,
    pub holder_kind: ObjectKind,
    pub missing: ObjectId,
    pub role: ReferenceRole,
    /// The refs that reach the missing object (through any holder),
    /// worked out when the conversion is refused.
    pub reached_from: ReachingRefs,
}

/// A gitlink (submodule commit) with no SHA-256 name available.
#[derive(Debug, Clone)]
pub struct UnmappedGitlink {
    pub tree: u32,
    pub name: Vec<u8>,
    pub target: ObjectId,
}

/// A commit's `mergetag` whose embedded tag names an object SOURCE does
/// not have. git accepts such history (nothing checks what a mergetag
/// names), but no SHA-256 translation of the tag exists: refused, or kept
/// verbatim with `--unmapped-mergetags=verbatim`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmappedMergetag {
    /// The commit's table index.
    pub commit: u32,
    /// What the tag's `object` line names (SHA-1, or SHA-256 in a field
    /// kept verbatim from a SHA-256 repository).
    pub target: ObjectId,
}

/// The refs that reach an object a refusal names: the first few by name
/// and how many in all; none when it is unreachable. With a ref selection,
/// only selected refs are counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReachingRefs {
    /// The first [`ReachingRefs::SHOWN`] of them, sorted by name.
    pub first: Vec<String>,
    /// How many refs reach it (0: no ref does).
    pub count: usize,
}

impl ReachingRefs {
    /// How many refs are named.
    pub const SHOWN: usize = 3;
}

impl std::fmt::Display for ReachingRefs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.count == 0 {
            return f.write_str("unreachable (no ref reaches it)");
        }
        write!(f, "reached from {}", self.first.join(", "))?;
        if self.count > self.first.len() {
            write!(
                f,
                " and {} more ({} refs)",
                self.count - self.first.len(),
                self.count
            )?;
        }
        Ok(())
    }
}

/// Which refs reach the objects one refusal names, all told, and the
/// options that convert without them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefusalReach {
    pub refs: ReachingRefs,
    /// `--exclude-refs '<pattern>'`... or `--reachable-only`: the
    /// selection that leaves out every object the refusal names (with a
    /// selection in force, added to it).
    pub options_past: String,
}
