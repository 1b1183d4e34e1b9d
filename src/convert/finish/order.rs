//! SOURCE's storage order for the objects of DEST, found by SHA-256 name:
//! the folded pack follows the order git chose for SOURCE's packs (commits
//! first, then the trees and blobs of each in recency order), which keeps
//! what is read together close together.

use crate::convert::source_objects::by_dest_name::ByDestName;
use crate::hash::ObjectId;

/// The storage-order key of the object named `id`; objects SOURCE no
/// longer has come last, with the loose ones.
pub fn storage_key(names: &ByDestName<'_>, id: &ObjectId) -> u64 {
    names
        .find(id)
        .map_or(u64::MAX, |i| names.table().storage_order(i))
}
