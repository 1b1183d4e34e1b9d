//! Packs: reading git's packs, writing packs git accepts, and the deltas
//! of the packs a conversion writes.

mod cross_wave;
mod deltas;
mod large_versions;
mod reach;
mod read;
mod read_throughput;
mod window_order;
mod write;

use crate::support::library::{ObjectId, ObjectKind};

/// For packs that need no base from outside: every lookup finds nothing.
fn no_external(_: &ObjectId) -> Option<(ObjectKind, Vec<u8>)> {
    None
}
