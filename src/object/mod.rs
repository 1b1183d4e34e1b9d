//! Git's object model: the four kinds and the `"<type> <len>\0"` framing.

mod header;
mod kind;
mod references;

pub use header::{HeaderError, object_header, parse_object_header};
pub use kind::ObjectKind;
pub use references::*;
