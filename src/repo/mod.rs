//! The repositories as places on disk: SOURCE, found and checked
//! read-only (with the object directories it borrows from), the layout of
//! DEST, the paths an export uses in MIRROR, and why a directory cannot
//! be created where it is named.

pub mod alternates;
pub mod cannot_create;
pub mod dest_layout;
mod error;
pub mod mirror_layout;
mod source;

pub use error::SourceError;
pub use source::SourceRepo;
