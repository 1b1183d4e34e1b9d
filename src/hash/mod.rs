//! Hash algorithms and object ids (git's `struct git_hash_algo` and
//! `struct object_id`).
//!
//! Every id carries its hash kind, so conversion code always says which side
//! of the SHA-1 -> SHA-256 translation it is on.

mod direction;
mod kind;
mod oid;
mod prefix_buckets;

pub use direction::Direction;
pub use kind::HashKind;
pub use oid::{HexError, ObjectId};
pub use prefix_buckets::PrefixBuckets;
