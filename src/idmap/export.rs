//! Streaming every row of the map, in SHA-1 order, without allocating per
//! row (the export formats are written by the CLI).

use super::query::decode_row;
use super::{ForEachError, IdMap, MapRow};
use crate::object::ObjectKind;

/// Calls `f` for every row (or every row of kind `only`), in SHA-1 order.
/// The scan walks the clustered primary key, so it reads the table once,
/// sequentially, and needs no sort.
pub fn export_rows(
    map: &IdMap,
    only: Option<ObjectKind>,
    mut f: impl FnMut(&MapRow) -> std::io::Result<()>,
) -> Result<(), ForEachError> {
    let sql_err = |e| ForEachError::Map(map.sql(e));
    let mut stmt = match only {
        None => map
            .conn
            .prepare("SELECT sha1, sha256, type FROM objects ORDER BY sha1"),
        Some(_) => map
            .conn
            .prepare("SELECT sha1, sha256, type FROM objects WHERE type = ?1 ORDER BY sha1"),
    }
    .map_err(sql_err)?;
    let mut rows = match only {
        None => stmt.query([]),
        Some(kind) => stmt.query([kind.pack_code()]),
    }
    .map_err(sql_err)?;
    while let Some(row) = rows.next().map_err(sql_err)? {
        let row = decode_row(map, row).map_err(ForEachError::Map)?;
        f(&row).map_err(ForEachError::Io)?;
    }
    Ok(())
}
