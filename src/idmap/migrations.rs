//! Append-only schema migrations, tracked by `PRAGMA user_version`.
//!
//! Migration N (1-based) is the N-th file of `migrations/`; a database at
//! user_version V gets migrations V+1.. applied in one transaction each.
//! Files are never edited once released: a schema change is a new file.

use rusqlite::Connection;

/// The migrations, in order. Their index + 1 is the user_version they produce.
pub const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/0001_object_map.sql"),
    include_str!("../../migrations/0002_run_journal.sql"),
    include_str!("../../migrations/0003_created_objects.sql"),
];

/// The schema version this build writes and understands.
pub fn latest_version() -> i64 {
    MIGRATIONS.len() as i64
}

/// Applies every migration the database has not seen. Returns the version
/// found before, or `Err(found)` wrapped by the caller when it is too new.
pub fn apply(conn: &mut Connection) -> rusqlite::Result<Result<i64, i64>> {
    let found: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found > latest_version() {
        return Ok(Err(found));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.commit()?;
    }
    Ok(Ok(found))
}
