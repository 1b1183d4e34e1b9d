//! The repositories as places on disk: SOURCE, found and checked
//! read-only, the layout of DEST, and the paths an export uses in MIRROR.

pub mod dest_layout;
pub mod mirror_layout;
mod source;

pub use source::{SourceError, SourceRepo};
