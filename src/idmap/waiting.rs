//! Waiting segments (migration 0009): segments journaled with their rows
//! kept apart from the map, because some of their objects name objects
//! that have no row yet (a tree written before the last blob segment
//! committed). They are durable: a run that is killed keeps them, and the
//! next run adopts their objects as written. Their rows join the map
//! (staged, `staged.rs`) in one transaction once every object they name
//! has a row ([`IdMap::promote_waiting`]), so the map stays closed under
//! references at every instant.

use rusqlite::{Connection, MAIN_DB, params};

use super::IdMap;
use super::error::IdMapError;
use super::row::MapRow;
use super::row_batch::StagedRow;
use super::staged::{ROW_BYTES, forget_filters, write_rows};
use crate::hash::ObjectId;
use crate::object::ObjectKind;

/// Rows read from a waiting blob at a time.
const ROWS_PER_READ: usize = 1024;

/// Keeps the rows of segment `pack` waiting, in the caller's transaction.
pub(super) fn wait(
    conn: &Connection,
    pack: &str,
    rows: impl ExactSizeIterator<Item = MapRow>,
) -> rusqlite::Result<()> {
    write_rows(conn, "waiting_rows", pack, rows)
}

impl IdMap {
    /// The waiting segments' file stems, in commit order.
    pub fn waiting_segments(&self) -> Result<Vec<String>, IdMapError> {
        let sql = |e| self.sql(e);
        let mut stmt = self
            .conn
            .prepare(
                "SELECT segments.pack FROM waiting_rows JOIN segments USING (pack) \
                 ORDER BY segments.seq",
            )
            .map_err(sql)?;
        let stems = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(sql)?;
        Ok(stems)
    }

    /// Calls `f` with every row waiting segment `pack` holds, in SHA-1
    /// order.
    pub fn for_each_waiting_row(
        &self,
        pack: &str,
        mut f: impl FnMut(MapRow),
    ) -> Result<(), IdMapError> {
        let sql = |e| self.sql(e);
        let rowid: i64 = self
            .conn
            .query_row(
                "SELECT rowid FROM waiting_rows WHERE pack = ?1",
                [pack],
                |r| r.get(0),
            )
            .map_err(sql)?;
        let blob = self
            .conn
            .blob_open(MAIN_DB, "waiting_rows", "rows", rowid, true)
            .map_err(sql)?;
        let corrupt = |what: String| IdMapError::CorruptRow {
            path: self.path.clone(),
            reason: format!("waiting segment {pack}: {what}"),
        };
        let len = blob.len();
        if !len.is_multiple_of(ROW_BYTES) {
            return Err(corrupt(format!("its rows are {len} bytes")));
        }
        let mut piece = Vec::with_capacity(ROWS_PER_READ * ROW_BYTES);
        let mut at = 0;
        while at < len {
            piece.resize((len - at).min(ROWS_PER_READ * ROW_BYTES), 0);
            blob.read_at_exact(&mut piece, at).map_err(sql)?;
            at += piece.len();
            for raw in piece.chunks_exact(ROW_BYTES) {
                let row = StagedRow::decode(raw);
                let kind = ObjectKind::from_pack_code(row.code)
                    .ok_or_else(|| corrupt(format!("type code {}", row.code)))?;
                f(MapRow {
                    sha1: ObjectId::Sha1(row.sha1),
                    sha256: ObjectId::Sha256(row.sha256),
                    kind,
                });
            }
        }
        Ok(())
    }

    /// In one transaction: every waiting segment's rows join the map
    /// (staged, merged into `objects` when the run ends). Call only once
    /// every object they name has a row. Returns how many rows joined.
    /// `before_commit` runs inside the transaction, just before it commits
    /// (a test hook).
    pub fn promote_waiting(&mut self, before_commit: &dyn Fn()) -> Result<u64, IdMapError> {
        let sql = IdMapError::sql_at(&self.path);
        let tx = self.conn.transaction().map_err(sql)?;
        let (segments, bytes): (i64, i64) = tx
            .query_row(
                "SELECT count(*), coalesce(sum(length(rows)), 0) FROM waiting_rows",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(sql)?;
        if segments == 0 {
            return Ok(0);
        }
        tx.execute_batch(
            "INSERT OR REPLACE INTO staged_rows (pack, rows) \
                 SELECT waiting_rows.pack, waiting_rows.rows FROM waiting_rows \
                 JOIN segments USING (pack) ORDER BY segments.seq; \
             DELETE FROM waiting_rows;",
        )
        .map_err(sql)?;
        forget_filters(&tx).map_err(sql)?;
        before_commit();
        tx.commit().map_err(sql)?;
        Ok(bytes as u64 / ROW_BYTES as u64)
    }

    /// In one transaction: the waiting segments `packs` are dropped from
    /// the journal with their rows; their files are leftovers from then on
    /// (`live_packs` no longer names them) and their objects are converted
    /// again.
    pub fn discard_waiting(&mut self, packs: &[String]) -> Result<(), IdMapError> {
        let sql = IdMapError::sql_at(&self.path);
        let tx = self.conn.transaction().map_err(sql)?;
        for pack in packs {
            tx.execute("DELETE FROM waiting_rows WHERE pack = ?1", params![pack])
                .map_err(sql)?;
            tx.execute("DELETE FROM segments WHERE pack = ?1", params![pack])
                .map_err(sql)?;
        }
        tx.commit().map_err(sql)
    }
}
