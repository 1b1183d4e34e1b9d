//! The SQLite SHA-1 <-> SHA-256 map store.
//!
//! The database lives at `<DEST>/rehash/map.sqlite` (see docs/files.md). The
//! conversion commits rows segment by segment, each batch in one transaction
//! with the journal row of the pack that stores those objects (`journal.rs`);
//! the reverse index is built after the first complete run. Readers open it
//! read-only; WAL mode lets them run while a conversion writes. [`query`]
//! resolves full and abbreviated names on either side; [`export`] streams the
//! rows. A DEST converted with `--shared-with` has rows for its own objects
//! only and names its pool's map (`shared_maps.rs`); queries and exports read the
//! chain of maps as one. `ref_selection.rs`: the refs DEST carries.

mod created;
mod error;
mod exported;
mod journal;
mod lookup_aids;
#[cfg(test)]
mod lookup_aids_tests;
mod mergetags;
#[cfg(test)]
mod mergetags_tests;
mod migrations;
mod query;
mod ref_selection;
mod row;
mod row_batch;
mod row_stream;
mod schema;
mod shared_maps;
mod staged;
#[cfg(test)]
mod staged_tests;
mod store;
#[cfg(test)]
mod test_rows;
mod waiting;
#[cfg(test)]
mod waiting_tests;

pub use created::CreatedRow;
pub use error::IdMapError;
pub use journal::{RowsGo, RunId, SegmentRows};
pub use query::{BadId, HexPrefix, MIN_ABBREV, Resolution, Resolver};
pub use ref_selection::REF_SELECTION;
pub use row::MapRow;
pub use row_stream::export_rows;
pub use shared_maps::{SHARED_WITH, open_shared_maps, open_with_shares};
pub use store::{DIRECTION, ForEachError, IdMap};
