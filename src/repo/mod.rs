//! The two repositories of a conversion as places on disk: SOURCE, found
//! and checked read-only, and the layout of DEST.

pub mod dest_layout;
mod source;

pub use source::{SourceError, SourceRepo};
