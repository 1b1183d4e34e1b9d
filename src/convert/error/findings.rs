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
