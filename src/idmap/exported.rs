//! Pairs `git-rehash export-sha1` recorded for objects made in DEST after
//! its conversion (migration 0008, `exported`): their rows go into
//! `objects` like any other pair, and `exported` notes that they came from
//! DEST's own history.

use rusqlite::params;

use super::IdMap;
use super::error::IdMapError;
use super::row::MapRow;
use crate::hash::ObjectId;

impl IdMap {
    /// Records `rows` in one transaction: each pair in `objects`, its
    /// SHA-256 in `exported`. The caller records an object only after the
    /// objects it references (the map stays closed under references).
    pub fn record_exported(&mut self, rows: &[MapRow]) -> Result<(), IdMapError> {
        if rows.is_empty() {
            return Ok(());
        }
        let sql = IdMapError::sql_at(&self.path);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let tx = self.conn.transaction().map_err(sql)?;
        {
            let mut pair = tx
                .prepare_cached("INSERT INTO objects (sha1, sha256, type) VALUES (?1, ?2, ?3)")
                .map_err(sql)?;
            let mut mark = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO exported (sha256, recorded) VALUES (?1, ?2)",
                )
                .map_err(sql)?;
            for row in rows {
                pair.execute(params![
                    row.sha1.as_bytes(),
                    row.sha256.as_bytes(),
                    row.kind.pack_code()
                ])
                .map_err(sql)?;
                mark.execute(params![row.sha256.as_bytes(), now])
                    .map_err(sql)?;
            }
        }
        tx.commit().map_err(sql)
    }

    /// Whether the prefix filters describe the current rows (rows added
    /// since emptied them; `finish_load` builds them again).
    pub fn lookup_aids_current(&self) -> Result<bool, IdMapError> {
        self.conn
            .query_row("SELECT count(*) FROM prefix_filter", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n == 2)
            .map_err(|e| self.sql(e))
    }

    /// How many pairs came from DEST's own history.
    pub fn exported_count(&self) -> Result<u64, IdMapError> {
        self.conn
            .query_row("SELECT count(*) FROM exported", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| self.sql(e))
    }

    /// Whether the pair of `sha256` came from DEST's own history.
    pub fn is_exported(&self, sha256: &ObjectId) -> Result<bool, IdMapError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT 1 FROM exported WHERE sha256 = ?1")
            .map_err(|e| self.sql(e))?;
        stmt.exists([sha256.as_bytes()]).map_err(|e| self.sql(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idmap::test_rows::row;

    #[test]
    fn exported_pairs_join_the_map_and_are_marked() {
        let dir = tempfile::tempdir().unwrap();
        let mut map = IdMap::open_rw(&dir.path().join("map.sqlite")).unwrap();
        map.load((0..3).map(row)).unwrap();
        map.finish_load().unwrap();
        let new: Vec<MapRow> = (3..5).map(row).collect();
        map.record_exported(&new).unwrap();
        assert_eq!(map.count().unwrap(), 5);
        assert_eq!(map.exported_count().unwrap(), 2);
        assert_eq!(map.lookup(&new[1].sha256).unwrap(), Some(new[1]));
        assert!(map.is_exported(&new[0].sha256).unwrap());
        assert!(!map.is_exported(&row(0).sha256).unwrap());
        // The prefix filters described the old rows only: the insert
        // emptied them, and a rebuild describes every row again.
        assert!(!map.lookup_aids_current().unwrap());
        map.finish_load().unwrap();
        assert!(map.lookup_aids_current().unwrap());
        assert_eq!(map.lookup(&new[0].sha1).unwrap(), Some(new[0]));
    }
}
