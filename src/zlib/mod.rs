//! zlib streams: bounded inflation of pack entries and loose objects, and
//! the one-shot compression of pack entry data.

mod deflate;
mod inflate;

pub use deflate::deflate;
pub(crate) use inflate::*;
