//! Refs after a conversion: every ref, HEAD and reflog names the
//! translated object, and replace refs still replace; reftable SOURCEs and
//! DESTs; linked worktrees' HEADs and refs.

mod read_back;
mod reftable;
mod replace;
mod worktrees;
