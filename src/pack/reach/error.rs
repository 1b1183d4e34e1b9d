//! Why the reachability indexes of a pack could not be written.

use crate::hash::ObjectId;
use crate::object::ReferencesError;
use crate::pack::error::PackError;

/// Why the indexes could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReachError {
    #[error(transparent)]
    Read(#[from] PackError),
    #[error("object {id} cannot be read for the bitmap: {error}")]
    Malformed {
        id: ObjectId,
        #[source]
        error: ReferencesError,
    },
    #[error("object {id} reaches {missing}, which the pack does not hold: no bitmap can cover it")]
    NotClosed { id: ObjectId, missing: ObjectId },
    #[error(transparent)]
    File(#[from] crate::durable::PathError),
}
