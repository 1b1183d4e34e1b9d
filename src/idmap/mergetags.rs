//! Commits translated with a mergetag kept verbatim (migration 0007,
//! `verbatim_mergetags`): recorded with their map rows, so that the
//! inverse translation knows which commits may hold such a field.

use rusqlite::{Connection, params};

use super::IdMap;
use super::error::IdMapError;
use super::schema::schema_has;
use crate::hash::{HashKind, ObjectId};

/// Records `commits` (SHA-1 names) in the caller's transaction.
pub(super) fn record(conn: &Connection, commits: &[ObjectId]) -> rusqlite::Result<()> {
    let mut stmt =
        conn.prepare_cached("INSERT OR REPLACE INTO verbatim_mergetags (sha1) VALUES (?1)")?;
    for id in commits {
        stmt.execute(params![id.as_bytes()])?;
    }
    Ok(())
}

impl IdMap {
    /// Every commit recorded as translated with a verbatim mergetag, by
    /// SHA-1, sorted. A map from before migration 7 has none.
    pub fn verbatim_mergetags(&self) -> Result<Vec<ObjectId>, IdMapError> {
        let sql = |e| self.sql(e);
        if !schema_has(&self.conn, "table", "verbatim_mergetags").map_err(sql)? {
            return Ok(Vec::new());
        }
        let mut stmt = self
            .conn
            .prepare("SELECT sha1 FROM verbatim_mergetags ORDER BY sha1")
            .map_err(sql)?;
        let raw = stmt
            .query_map([], |r| r.get::<_, Vec<u8>>(0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(sql)?;
        raw.iter()
            .map(|b| {
                ObjectId::from_raw(HashKind::Sha1, b).ok_or_else(|| IdMapError::CorruptRow {
                    path: self.path.clone(),
                    reason: format!("verbatim_mergetags: a SHA-1 of {} bytes", b.len()),
                })
            })
            .collect()
    }
}
