//! The run journal: one row per conversion run and one per finished output
//! pack ("segment"), committed together with the map rows of the objects in
//! that pack (migration 0002).
//!
//! This is the checkpoint of a conversion: a map row (in `objects`, or
//! staged in `staged_rows` until the run's end merges it) exists only for
//! an object stored in a pack named by `segments`, or in the pack of
//! `packs` that segment was folded into (migration 0006), so a resumed or
//! incremental run converts exactly the objects without a row.

use rusqlite::{OptionalExtension, params};

use super::IdMap;
use super::error::IdMapError;
use super::row::MapRow;

/// The map rows a segment commits.
pub struct SegmentRows<'a, I> {
    pub rows: I,
    /// SHA-1 names of the commits among them translated with a verbatim
    /// mergetag (`--unmapped-mergetags=verbatim`).
    pub verbatim_mergetags: &'a [crate::hash::ObjectId],
}

impl<I> SegmentRows<'_, I> {
    /// Rows of objects none of which keeps a mergetag verbatim.
    pub fn plain(rows: I) -> Self {
        SegmentRows {
            rows,
            verbatim_mergetags: &[],
        }
    }
}

/// Where a journaled segment's rows go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowsGo {
    /// Into the map (staged).
    ToMap,
    /// Apart from it, until what they name has rows (`waiting.rs`).
    Waiting,
}

/// A run's row id in the `runs` table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunId(pub i64);

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl IdMap {
    /// Records the start of a run: how many objects SOURCE listed and how
    /// many of them had no row.
    pub fn begin_run(&mut self, listed: u64, new_objects: u64) -> Result<RunId, IdMapError> {
        self.conn
            .execute(
                "INSERT INTO runs (started, listed, new_objects) VALUES (?1, ?2, ?3)",
                params![now(), listed as i64, new_objects as i64],
            )
            .map_err(|e| self.sql(e))?;
        Ok(RunId(self.conn.last_insert_rowid()))
    }

    pub fn finish_run(&mut self, run: RunId) -> Result<(), IdMapError> {
        self.conn
            .execute(
                "UPDATE runs SET finished = ?1 WHERE id = ?2",
                params![now(), run.0],
            )
            .map(|_| ())
            .map_err(|e| self.sql(e))
    }

    /// In one transaction: the segment row of the finished pack `pack` (file
    /// stem) and the map rows of every object in it, staged (`staged.rs`)
    /// until `finish_load` merges them into `objects`, with the commits
    /// among them translated with a verbatim mergetag (`mergetags.rs`).
    /// Call only once the pack is renamed into place and durable, and every
    /// object its objects name has a row. `rows` come best in SHA-1 order
    /// (the merge then reads each blob in key order); any order gives the
    /// same map. `before_commit` runs inside the transaction, just before
    /// it commits (a test hook).
    pub fn commit_segment(
        &mut self,
        run: RunId,
        pack: &str,
        segment: SegmentRows<impl ExactSizeIterator<Item = MapRow>>,
        bytes: u64,
        before_commit: &dyn Fn(),
    ) -> Result<(), IdMapError> {
        self.journal_segment(run, pack, segment, bytes, RowsGo::ToMap, before_commit)
    }

    /// As [`IdMap::commit_segment`], with the rows going where `rows_go`
    /// says: [`RowsGo::Waiting`] for a segment some of whose objects name
    /// objects without a row yet, whose rows wait apart from the map
    /// (`waiting.rs`) until [`IdMap::promote_waiting`].
    pub fn journal_segment(
        &mut self,
        run: RunId,
        pack: &str,
        segment: SegmentRows<impl ExactSizeIterator<Item = MapRow>>,
        bytes: u64,
        rows_go: RowsGo,
        before_commit: &dyn Fn(),
    ) -> Result<(), IdMapError> {
        let SegmentRows {
            rows,
            verbatim_mergetags,
        } = segment;
        let sql = IdMapError::sql_at(&self.path);
        let tx = self.conn.transaction().map_err(sql)?;
        {
            let seq: i64 = tx
                .query_row("SELECT coalesce(max(seq), 0) + 1 FROM segments", [], |r| {
                    r.get(0)
                })
                .map_err(sql)?;
            tx.execute(
                "INSERT OR REPLACE INTO segments (pack, run, seq, objects, bytes) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![pack, run.0, seq, rows.len() as i64, bytes as i64],
            )
            .map_err(sql)?;
            match rows_go {
                RowsGo::ToMap => super::staged::stage(&tx, pack, rows),
                RowsGo::Waiting => super::waiting::wait(&tx, pack, rows),
            }
            .map_err(sql)?;
            super::mergetags::record(&tx, verbatim_mergetags).map_err(sql)?;
        }
        before_commit();
        tx.commit().map_err(sql)
    }

    /// The file stems of every committed segment, folded or not, in
    /// commit order.
    pub fn segment_packs(&self) -> Result<Vec<String>, IdMapError> {
        self.stems("SELECT pack FROM segments ORDER BY seq")
    }

    /// The segments whose own files still hold their objects (not folded
    /// into a pack yet), in commit order, waiting ones included.
    pub fn pending_segments(&self) -> Result<Vec<String>, IdMapError> {
        self.stems("SELECT pack FROM segments WHERE folded_into IS NULL ORDER BY seq")
    }

    /// The packs finish steps wrote, oldest run first.
    pub fn folded_packs(&self) -> Result<Vec<String>, IdMapError> {
        self.stems("SELECT pack FROM packs ORDER BY run, pack")
    }

    /// Every pack file DEST must have: the folded packs and the pending
    /// segments. Any other pack in `objects/pack` is a leftover.
    pub fn live_packs(&self) -> Result<Vec<String>, IdMapError> {
        let mut stems = self.folded_packs()?;
        stems.extend(self.pending_segments()?);
        Ok(stems)
    }

    /// In one transaction: `pack` (written by `run`, renamed into place and
    /// durable) now holds the objects of `segments`, which may be deleted;
    /// the packs in `replaced` (their objects all in `pack` too) are gone.
    pub fn record_fold(
        &mut self,
        run: RunId,
        pack: &str,
        objects: u64,
        bytes: u64,
        segments: &[String],
        replaced: &[String],
    ) -> Result<(), IdMapError> {
        let sql = IdMapError::sql_at(&self.path);
        let tx = self.conn.transaction().map_err(sql)?;
        {
            for old in replaced {
                tx.execute("DELETE FROM packs WHERE pack = ?1", [old])
                    .map_err(sql)?;
                tx.execute(
                    "UPDATE segments SET folded_into = ?1 WHERE folded_into = ?2",
                    params![pack, old],
                )
                .map_err(sql)?;
            }
            tx.execute(
                "INSERT OR REPLACE INTO packs (pack, run, objects, bytes) VALUES (?1, ?2, ?3, ?4)",
                params![pack, run.0, objects as i64, bytes as i64],
            )
            .map_err(sql)?;
            let mut fold = tx
                .prepare("UPDATE segments SET folded_into = ?1 WHERE pack = ?2")
                .map_err(sql)?;
            for segment in segments {
                fold.execute(params![pack, segment]).map_err(sql)?;
            }
        }
        tx.commit().map_err(sql)
    }

    fn stems(&self, query: &str) -> Result<Vec<String>, IdMapError> {
        let mut stmt = self.conn.prepare(query).map_err(|e| self.sql(e))?;
        let names: Vec<String> = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.sql(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.sql(e))?;
        Ok(names)
    }

    /// The id of the last run that finished, if any.
    pub fn last_finished_run(&self) -> Result<Option<i64>, IdMapError> {
        self.conn
            .query_row(
                "SELECT max(id) FROM runs WHERE finished IS NOT NULL",
                [],
                |r| r.get::<_, Option<i64>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(|e| self.sql(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idmap::test_rows::row;

    #[test]
    fn segments_commit_with_their_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map.sqlite");
        let mut map = IdMap::open_rw(&path).unwrap();
        let run = map.begin_run(10, 10).unwrap();
        map.commit_segment(
            run,
            "pack-b",
            SegmentRows::plain((0..5).map(row)),
            100,
            &|| {},
        )
        .unwrap();
        map.commit_segment(
            run,
            "pack-a",
            SegmentRows::plain((5..10).map(row)),
            100,
            &|| {},
        )
        .unwrap();
        assert_eq!(map.count().unwrap(), 10);
        assert_eq!(map.segment_packs().unwrap(), ["pack-b", "pack-a"]);
        assert_eq!(map.last_finished_run().unwrap(), None);
        map.finish_run(run).unwrap();
        assert_eq!(map.last_finished_run().unwrap(), Some(run.0));
    }
}
