//! Loose objects: `objects/xx/yyyy...`, each a zlib stream of
//! `"<type> SP <len> NUL" body` (gitformat-loose). Reading any of them;
//! writing the few a conversion creates itself.

mod read;
mod write;

pub use read::{LooseError, list_loose, loose_path, read_loose};
pub use write::{write_loose, write_loose_named};
