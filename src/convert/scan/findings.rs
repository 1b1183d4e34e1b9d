//! What the scan finds that may refuse the conversion: references to
//! objects SOURCE does not have, and gitlinks without a SHA-256 name.

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
