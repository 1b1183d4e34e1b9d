//! Hash algorithms and object ids (git's `struct git_hash_algo` and
//! `struct object_id`).
//!
//! Every id carries its hash kind, so conversion code always says which side
//! of the SHA-1 -> SHA-256 translation it is on.

#[cfg(test)]
pub(crate) mod collision_hook;
mod kind;
mod object_hash;
mod oid;

pub use kind::HashKind;
pub use object_hash::{Sha1Collision, object_id, sha1_object_id, sha256_object_id};
pub use oid::{HexError, ObjectId};
