//! One row of the map: an object's pair of names and its type.

use crate::hash::ObjectId;
use crate::object::ObjectKind;

/// One object's pair of names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapRow {
    pub sha1: ObjectId,
    pub sha256: ObjectId,
    pub kind: ObjectKind,
}
