//! Streaming every row of the map, in SHA-1 order, without allocating per
//! row (the export formats are written by the CLI).

use super::IdMap;
use super::query::decode_row;
use super::row::MapRow;
use super::store::ForEachError;
use crate::object::ObjectKind;

/// Calls `f` for every row (or every row of kind `only`) of `maps`, in
/// SHA-1 order; an object that several maps hold (a DEST's own and the
/// pools it shares with, `shared_maps.rs`) is passed once, from the first.
/// Each map's scan walks its clustered primary key, so it reads the table
/// once, sequentially, and needs no sort; the scans are merged as they go.
pub fn export_rows(
    maps: &[IdMap],
    only: Option<ObjectKind>,
    mut f: impl FnMut(&MapRow) -> std::io::Result<()>,
) -> Result<(), ForEachError> {
    let sql = match only {
        None => "SELECT sha1, sha256, type FROM objects ORDER BY sha1",
        Some(_) => "SELECT sha1, sha256, type FROM objects WHERE type = ?1 ORDER BY sha1",
    };
    let mut statements = maps
        .iter()
        .map(|map| {
            map.conn
                .prepare(sql)
                .map_err(|e| ForEachError::Map(map.sql(e)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut cursors = Vec::with_capacity(maps.len());
    for (map, stmt) in maps.iter().zip(&mut statements) {
        let rows = match only {
            None => stmt.query([]),
            Some(kind) => stmt.query([kind.pack_code()]),
        }
        .map_err(|e| ForEachError::Map(map.sql(e)))?;
        cursors.push((map, rows, None));
    }
    // Each cursor's next row; the smallest goes out, equal ones are skipped.
    let advance = |(map, rows, head): &mut (&IdMap, rusqlite::Rows<'_>, Option<MapRow>)| {
        *head = match rows.next().map_err(|e| ForEachError::Map(map.sql(e)))? {
            Some(row) => Some(decode_row(map, row).map_err(ForEachError::Map)?),
            None => None,
        };
        Ok::<_, ForEachError>(())
    };
    for cursor in &mut cursors {
        advance(cursor)?;
    }
    while let Some(first) = cursors
        .iter()
        .filter_map(|(_, _, head)| *head)
        .min_by_key(|row| row.sha1)
    {
        f(&first).map_err(ForEachError::Io)?;
        for cursor in &mut cursors {
            if cursor.2.is_some_and(|row| row.sha1 == first.sha1) {
                advance(cursor)?;
            }
        }
    }
    Ok(())
}
