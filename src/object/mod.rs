//! Git's object model: the four kinds, the `"<type> <len>\0"` framing,
//! object naming (sha1dc and SHA-256) and the ids an object references.

#[cfg(test)]
pub(crate) mod collision_hook;
mod header;
mod kind;
mod naming;
mod references;
mod tag_chain;
mod tree_mode;
mod tree_spans;

pub use header::{HeaderError, object_header, parse_object_header};
pub use kind::ObjectKind;
pub use naming::{Sha1Collision, object_id, sha1_object_id, sha256_object_id};
pub use references::*;
pub use tag_chain::{MAX_TAG_CHAIN, peel_tags};
pub use tree_mode::TreeMode;
pub use tree_spans::{Entry, SharedEntries, entry_at, tree_order};
