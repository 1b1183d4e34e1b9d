//! The SQLite SHA-1 <-> SHA-256 map store.
//!
//! The database lives at `<DEST>/rehash/map.sqlite` (see docs/files.md). The
//! conversion fills it in large sorted batches inside one transaction; the
//! reverse index is built after the load. Readers open it read-only; WAL mode
//! lets them run while a conversion writes. [`query`] resolves full and
//! abbreviated names on either side; [`export`] streams the rows.

mod error;
mod export;
mod migrations;
mod query;
mod store;

pub use error::IdMapError;
pub use export::export_rows;
pub use query::{BadId, HexPrefix, MIN_ABBREV, Resolution, Resolver};
pub use store::{ForEachError, IdMap, MapRow, map_path};
