//! The two repositories of a conversion as places on disk: SOURCE, found
//! and checked read-only (with the object directories it borrows from),
//! and the layout of DEST.

pub mod alternates;
pub mod dest_layout;
mod source;

pub use source::{SourceError, SourceRepo};
