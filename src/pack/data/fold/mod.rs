//! Packs folded into one, each entry's zlib stream copied as it is: the new
//! pack laid out first (`plan.rs`), then copied on every core (`copy.rs`).

pub(crate) mod copy;
pub(crate) mod plan;
