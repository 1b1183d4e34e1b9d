//! git's delta format (gitformat-pack "Deltified representation"): applied
//! (`apply.rs`), encoded from a base and a target (`encode.rs`), and
//! between two trees from their entries (`tree.rs`).

pub(crate) mod apply;
pub(crate) mod encode;
pub(crate) mod tree;
