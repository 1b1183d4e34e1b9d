//! What the unit tests of every layer share, below all of them: the
//! installed git in a hermetic environment (`git.rs`), a deterministic
//! random number generator (`rng.rs`) and random tree bodies with edits
//! of them (`random_trees.rs`).

pub mod git;
pub mod random_trees;
pub mod rng;
