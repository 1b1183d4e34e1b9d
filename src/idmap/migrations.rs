//! Append-only schema migrations, identified by the number of their file.
//!
//! Migration N is `migrations/NNNN_*.sql`, optionally followed by a Rust step
//! for what SQL cannot express. Numbers need not be contiguous: migrations
//! are written on parallel branches, and a gap (a number taken by a branch
//! not merged yet) must not make a database skip or repeat one. So the
//! numbers applied are recorded in `schema_migrations`, and every known
//! migration not recorded there is applied, in ascending order, one
//! transaction each. `PRAGMA user_version` holds the highest number applied,
//! which older builds (that knew only user_version) compare with their own
//! latest to refuse a newer database.
//!
//! Databases from before `schema_migrations` have migrations 1..=user_version
//! applied (the numbers then were contiguous). Files are never edited once
//! released: a schema change is a new file.

use std::collections::BTreeSet;

use rusqlite::{Connection, Transaction};

use super::lookup_aids;
use super::schema::schema_has;

pub struct Migration {
    /// The number of its file; the order of application.
    pub id: i64,
    sql: &'static str,
    /// Runs after `sql`, in the same transaction.
    then: Option<fn(&Transaction<'_>) -> rusqlite::Result<()>>,
}

/// The migrations, in ascending `id`.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        id: 1,
        sql: include_str!("../../migrations/0001_object_map.sql"),
        then: None,
    },
    Migration {
        id: 2,
        sql: include_str!("../../migrations/0002_run_journal.sql"),
        then: None,
    },
    Migration {
        id: 3,
        sql: include_str!("../../migrations/0003_created_objects.sql"),
        then: None,
    },
    Migration {
        id: 4,
        sql: include_str!("../../migrations/0004_prefix_filter.sql"),
        // A map that was already indexed gets the covering index and the
        // filters now, so it is fast without waiting for another conversion.
        then: Some(lookup_aids::upgrade_indexed_map),
    },
    Migration {
        id: 5,
        sql: include_str!("../../migrations/0005_staged_rows.sql"),
        then: None,
    },
    Migration {
        id: 6,
        sql: include_str!("../../migrations/0006_folded_packs.sql"),
        then: None,
    },
    Migration {
        id: 7,
        sql: include_str!("../../migrations/0007_verbatim_mergetags.sql"),
        then: None,
    },
    Migration {
        id: 8,
        sql: include_str!("../../migrations/0008_exported_pairs.sql"),
        then: None,
    },
    Migration {
        id: 9,
        sql: include_str!("../../migrations/0009_waiting_rows.sql"),
        then: None,
    },
    Migration {
        id: 11,
        sql: include_str!("../../migrations/0011_created_in_either_hash.sql"),
        then: None,
    },
];

/// The highest migration number this build knows.
pub fn latest_version() -> i64 {
    MIGRATIONS.last().map_or(0, |m| m.id)
}

fn is_known(id: i64) -> bool {
    MIGRATIONS.iter().any(|m| m.id == id)
}

/// The user_version and the migrations applied to the database.
fn applied(conn: &Connection) -> rusqlite::Result<(i64, BTreeSet<i64>)> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let ids = if schema_has(conn, "table", "schema_migrations")? {
        let mut stmt = conn.prepare("SELECT id FROM schema_migrations")?;
        stmt.query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?
    } else {
        (1..=version).collect()
    };
    Ok((version, ids))
}

/// `Err(version)` when the database has a migration this build does not
/// know (it was written by a newer build).
pub fn check(conn: &Connection) -> rusqlite::Result<Result<(), i64>> {
    let (version, ids) = applied(conn)?;
    if version > latest_version() || ids.iter().any(|&id| !is_known(id)) {
        return Ok(Err(version));
    }
    Ok(Ok(()))
}

/// Applies every migration the database has not seen. Returns the
/// user_version found before, or `Err(found)` wrapped by the caller when the
/// database is too new.
pub fn apply(conn: &mut Connection) -> rusqlite::Result<Result<i64, i64>> {
    let (found, done) = applied(conn)?;
    if let Err(v) = check(conn)? {
        return Ok(Err(v));
    }
    let tx = conn.transaction()?;
    tx.execute_batch("CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY)")?;
    for id in &done {
        tx.execute(
            "INSERT OR IGNORE INTO schema_migrations (id) VALUES (?1)",
            [id],
        )?;
    }
    tx.commit()?;
    let mut version = found;
    for m in MIGRATIONS.iter().filter(|m| !done.contains(&m.id)) {
        let tx = conn.transaction()?;
        tx.execute_batch(m.sql)?;
        if let Some(step) = m.then {
            step(&tx)?;
        }
        tx.execute("INSERT INTO schema_migrations (id) VALUES (?1)", [m.id])?;
        version = version.max(m.id);
        tx.pragma_update(None, "user_version", version)?;
        tx.commit()?;
    }
    Ok(Ok(found))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_ascend_and_are_unique() {
        assert!(MIGRATIONS.windows(2).all(|w| w[0].id < w[1].id));
    }

    #[test]
    fn a_pre_table_database_counts_as_contiguous() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(MIGRATIONS[0].sql).unwrap();
        conn.execute_batch(MIGRATIONS[1].sql).unwrap();
        conn.pragma_update(None, "user_version", 2).unwrap();
        assert_eq!(apply(&mut conn).unwrap(), Ok(2));
        let (version, ids) = applied(&conn).unwrap();
        assert_eq!(version, latest_version());
        assert_eq!(ids, MIGRATIONS.iter().map(|m| m.id).collect());
        // Applying again is a no-op.
        assert_eq!(apply(&mut conn).unwrap(), Ok(latest_version()));
    }

    #[test]
    fn an_unknown_applied_number_is_too_new() {
        let mut conn = Connection::open_in_memory().unwrap();
        apply(&mut conn).unwrap().unwrap();
        // As if a newer build with a migration this one lacks had opened it.
        conn.execute(
            "INSERT INTO schema_migrations (id) VALUES (?1)",
            [latest_version() + 7],
        )
        .unwrap();
        assert_eq!(check(&conn).unwrap(), Err(latest_version()));
        assert_eq!(apply(&mut conn).unwrap(), Err(latest_version()));
    }
}
