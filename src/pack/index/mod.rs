//! The pack index (`.idx`): read, versions 1 and 2 (`read.rs`), and
//! written, version 2 (`write.rs`); the reverse index (`.rev`, RIDX
//! version 1) written beside it (`reverse.rs`).

pub(crate) mod read;
pub(crate) mod reverse;
pub(crate) mod write;
