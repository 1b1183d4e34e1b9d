//! Questions about a map database's schema, asked by the migrations and
//! by the features that depend on a later one.

use rusqlite::{Connection, OptionalExtension};

/// Whether the database's schema has an object of `kind` ("table",
/// "index", ...) called `name`.
pub(super) fn schema_has(conn: &Connection, kind: &str, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT 1 FROM sqlite_schema WHERE type = ?1 AND name = ?2",
        [kind, name],
        |_| Ok(()),
    )
    .optional()
    .map(|found| found.is_some())
}
