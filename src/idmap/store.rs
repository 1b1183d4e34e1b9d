//! Opening the map database, bulk loading it and reading it back.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use super::error::IdMapError;
use super::row::MapRow;
use super::{lookup_aids, migrations, staged};
use crate::hash::{Direction, HashKind, ObjectId};
use crate::object::ObjectKind;

/// The `meta` key of the direction of the conversion ([`Direction::name`]).
pub const DIRECTION: &str = "direction";

/// Address space SQLite may map (`PRAGMA mmap_size`): 64 GiB, far above
/// any map (about 130 bytes per object).
pub(super) const MMAP_SIZE: i64 = 64 << 30;

/// An open map database.
pub struct IdMap {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
    /// A read-only connection that found staged rows: `objects` is its
    /// temporary view over them and the table (`staged::shadow`), and the
    /// prefix filters, which describe the table alone, are not used.
    pub(super) shadowed: bool,
}

/// Page cache of a connection opened for writing, in KiB (SQLite's
/// default is 2000). A conversion writes the map as one sorted batch per
/// segment into a table clustered on SHA-1, so each batch walks the b-tree
/// once in key order: the pages it needs are the current path, and a larger
/// cache only holds leaves the next batch will not revisit before they are
/// evicted anyway. On a 100k-object conversion the default cache was 2 MiB
/// of a 37 MiB peak, a fixed cost no object paid for; 256 KiB left the
/// 500k conversion's time unchanged. The index build raises it again
/// (`lookup_aids::build`): there it is the sorter's memory.
const WRITE_CACHE_KIB: i64 = 256;

/// Rows per transaction during a bulk load: large enough that commit cost
/// vanishes, small enough that a transaction's journal stays modest.
const LOAD_BATCH: usize = 200_000;

impl IdMap {
    /// Opens (creating if needed) the database for writing and brings its
    /// schema up to date.
    pub fn open_rw(path: &Path) -> Result<Self, IdMapError> {
        let mut conn = Connection::open(path).map_err(|source| IdMapError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        let sql = IdMapError::sql_at(path);
        // WAL: readers (`git-rehash map`) never block the writer and vice versa.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sql)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sql)?;
        conn.pragma_update(None, "cache_size", -WRITE_CACHE_KIB)
            .map_err(sql)?;
        // Each segment's sorted batch of rows walks most of the table's
        // leaves, which the small cache above no longer holds: mapped, they
        // are read in place instead of copied through read(2) every time
        // (2200k objects: 6.0 GB of reads a conversion).
        conn.pragma_update(None, "mmap_size", MMAP_SIZE)
            .map_err(sql)?;
        match migrations::apply(&mut conn).map_err(sql)? {
            Ok(_) => {}
            Err(found) => {
                return Err(IdMapError::TooNew {
                    path: path.to_path_buf(),
                    found,
                    known: migrations::latest_version(),
                });
            }
        }
        let mut map = IdMap {
            conn,
            path: path.to_path_buf(),
            shadowed: false,
        };
        // Rows an interrupted run staged: merged before anything reads or
        // adds to the map, so a resumed run sees one table.
        if staged::any(&map.conn).map_err(sql)? {
            map.merge_staged()?;
        }
        Ok(map)
    }

    /// Opens an existing database read-only (queries, exports, verification).
    pub fn open_read_only(path: &Path) -> Result<Self, IdMapError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        Self::reader(path, path, flags)
    }

    /// A read-only connection to the database at `path`, opened as `name`
    /// (the path itself or a URI) with `flags`, its schema checked and its
    /// staged rows shadowed in.
    fn reader<P: AsRef<Path>>(path: &Path, name: P, flags: OpenFlags) -> Result<Self, IdMapError> {
        let conn = Connection::open_with_flags(name, flags).map_err(|source| IdMapError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        let mut map = IdMap {
            conn,
            path: path.to_path_buf(),
            shadowed: false,
        };
        if let Err(found) = migrations::check(&map.conn).map_err(|e| map.sql(e))? {
            return Err(IdMapError::TooNew {
                path: path.to_path_buf(),
                found,
                known: migrations::latest_version(),
            });
        }
        map.shadowed = staged::shadow(&map.conn, path)?;
        Ok(map)
    }

    /// Opens, read-only, a database that belongs to a repository this run
    /// must not write (SOURCE's own map): SQLite's `immutable` parameter,
    /// so that nothing is created beside it (no `-shm`, no `-wal`) and no
    /// lock is taken. What a write-ahead log holds beyond its last
    /// checkpoint is not seen: an older, consistent state of the map.
    pub fn open_immutable(path: &Path) -> Result<Self, IdMapError> {
        use std::os::unix::ffi::OsStrExt as _;
        let mut uri = String::from("file:");
        for &b in path.as_os_str().as_bytes() {
            if b.is_ascii_alphanumeric() || b"/._-~".contains(&b) {
                uri.push(char::from(b));
            } else {
                uri.push_str(&format!("%{b:02X}"));
            }
        }
        uri.push_str("?mode=ro&immutable=1");
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        Self::reader(path, Path::new(&uri), flags)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn sql(&self, source: rusqlite::Error) -> IdMapError {
        IdMapError::sql_at(&self.path)(source)
    }

    /// Inserts rows in large transactions. Rows should come sorted by SHA-1
    /// (the clustered key), which keeps B-tree pages append-only. A row whose
    /// SHA-1 is already present is replaced.
    pub fn load(&mut self, rows: impl IntoIterator<Item = MapRow>) -> Result<u64, IdMapError> {
        let sql = IdMapError::sql_at(&self.path);
        let mut rows = rows.into_iter().peekable();
        let mut count = 0u64;
        while rows.peek().is_some() {
            let tx = self.conn.transaction().map_err(sql)?;
            {
                let mut stmt = tx
                    .prepare_cached(
                        "INSERT OR REPLACE INTO objects (sha1, sha256, type) VALUES (?1, ?2, ?3)",
                    )
                    .map_err(sql)?;
                for row in rows.by_ref().take(LOAD_BATCH) {
                    stmt.execute(params![
                        row.sha1.as_bytes(),
                        row.sha256.as_bytes(),
                        row.kind.pack_code()
                    ])
                    .map_err(sql)?;
                    count += 1;
                }
            }
            tx.commit().map_err(sql)?;
        }
        Ok(count)
    }

    /// Merges the staged rows into `objects` (`staged`), then builds the
    /// reverse (SHA-256) index and the prefix filters (see `lookup_aids`).
    ///
    /// Two transactions: the merged table is committed (and so checkpointed
    /// into the file) before the build reads it back, because pages still
    /// in the write-ahead log are read with a copy each where the file's
    /// are read in place (`mmap_size`); one transaction took 15% longer on
    /// 100k objects. Interrupted between the two, the map has its rows and
    /// no fresh aids, which the next run's `finish_load` builds.
    pub fn finish_load(&mut self) -> Result<(), IdMapError> {
        self.merge_staged()?;
        let sql = IdMapError::sql_at(&self.path);
        let tx = self.conn.transaction().map_err(sql)?;
        lookup_aids::build(&tx).map_err(sql)?;
        tx.commit().map_err(sql)?;
        self.conn.execute_batch("PRAGMA optimize;").map_err(sql)
    }

    /// Merges the staged rows into `objects` in a transaction of its own,
    /// committed when this returns.
    fn merge_staged(&mut self) -> Result<(), IdMapError> {
        let sql = IdMapError::sql_at(&self.path);
        let tx = self.conn.transaction().map_err(sql)?;
        staged::fold(&tx, &self.path)?;
        tx.commit().map_err(sql)
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), IdMapError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|e| self.sql(e))
    }

    pub fn meta(&self, key: &str) -> Result<Option<String>, IdMapError> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(|e| self.sql(e))
    }

    /// Which way the conversion that wrote this map goes, as its `meta`
    /// records it ([`DIRECTION`]); a map written before the reverse
    /// direction existed records none and is SHA-1 to SHA-256.
    pub fn direction(&self) -> Result<Direction, IdMapError> {
        match self.meta(DIRECTION)? {
            None => Ok(Direction::FORWARD),
            Some(name) => Direction::from_name(&name).ok_or_else(|| IdMapError::CorruptRow {
                path: self.path.clone(),
                reason: format!("meta {DIRECTION} is {name:?}, which names no direction"),
            }),
        }
    }

    /// Rows in the map, staged or not.
    pub fn count(&self) -> Result<u64, IdMapError> {
        let rows = self
            .conn
            .query_row("SELECT count(*) FROM objects", [], |r| r.get::<_, i64>(0))
            .map_err(|e| self.sql(e))? as u64;
        // A shadowed `objects` already counts the staged rows.
        let staged = if self.shadowed {
            0
        } else {
            staged::count(&self.conn).map_err(|e| self.sql(e))?
        };
        Ok(rows + staged)
    }

    /// The row of an object by either of its names.
    pub fn lookup(&self, id: &ObjectId) -> Result<Option<MapRow>, IdMapError> {
        let sql = match id.kind() {
            HashKind::Sha1 => "SELECT sha1, sha256, type FROM objects WHERE sha1 = ?1",
            HashKind::Sha256 => "SELECT sha1, sha256, type FROM objects WHERE sha256 = ?1",
        };
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.sql(e))?;
        let raw = stmt
            .query_row([id.as_bytes()], raw_row)
            .optional()
            .map_err(|e| self.sql(e))?;
        raw.map(|r| self.decode(r)).transpose()
    }

    /// Calls `f` for every row, in SHA-1 order.
    pub fn for_each(
        &self,
        mut f: impl FnMut(MapRow) -> std::io::Result<()>,
    ) -> Result<(), ForEachError> {
        let mut stmt = self
            .conn
            .prepare("SELECT sha1, sha256, type FROM objects ORDER BY sha1")
            .map_err(|e| ForEachError::Map(self.sql(e)))?;
        let mut rows = stmt.query([]).map_err(|e| ForEachError::Map(self.sql(e)))?;
        while let Some(row) = rows.next().map_err(|e| ForEachError::Map(self.sql(e)))? {
            let raw = raw_row(row).map_err(|e| ForEachError::Map(self.sql(e)))?;
            f(self.decode(raw).map_err(ForEachError::Map)?).map_err(ForEachError::Io)?;
        }
        Ok(())
    }

    fn decode(&self, (sha1, sha256, code): RawRow) -> Result<MapRow, IdMapError> {
        let corrupt = |reason: String| IdMapError::CorruptRow {
            path: self.path.clone(),
            reason,
        };
        let sha1_id = ObjectId::from_raw(HashKind::Sha1, &sha1)
            .ok_or_else(|| corrupt(format!("sha1 of {} bytes", sha1.len())))?;
        let sha256_id = ObjectId::from_raw(HashKind::Sha256, &sha256)
            .ok_or_else(|| corrupt(format!("sha256 of {} bytes for {sha1_id}", sha256.len())))?;
        let kind = u8::try_from(code)
            .ok()
            .and_then(ObjectKind::from_pack_code)
            .ok_or_else(|| corrupt(format!("type {code} for {sha1_id}")))?;
        Ok(MapRow {
            sha1: sha1_id,
            sha256: sha256_id,
            kind,
        })
    }
}

/// Failure while streaming rows to a consumer: the map, or the consumer's I/O.
#[derive(Debug, thiserror::Error)]
pub enum ForEachError {
    #[error(transparent)]
    Map(IdMapError),
    #[error(transparent)]
    Io(std::io::Error),
}

type RawRow = (Vec<u8>, Vec<u8>, i64);

fn raw_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<RawRow> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idmap::test_rows::row;

    #[test]
    fn writes_with_a_small_page_cache_and_indexes_with_the_default() {
        let dir = tempfile::tempdir().unwrap();
        let mut map = IdMap::open_rw(&dir.path().join("map.sqlite")).unwrap();
        let cache = |map: &IdMap| -> i64 {
            map.conn
                .query_row("PRAGMA cache_size", [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(cache(&map), -WRITE_CACHE_KIB);
        map.load((0..10).map(row)).unwrap();
        map.finish_load().unwrap();
        assert_eq!(cache(&map), -2000, "SQLite's default, for the sorter");
    }

    #[test]
    fn load_lookup_both_ways_and_export_sorted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map.sqlite");
        let mut rows: Vec<MapRow> = (0..1000).map(row).collect();
        rows.sort_by_key(|r| r.sha1);
        {
            let mut map = IdMap::open_rw(&path).unwrap();
            assert_eq!(map.load(rows.clone()).unwrap(), 1000);
            map.finish_load().unwrap();
            map.set_meta("source", "/x").unwrap();
        }
        let map = IdMap::open_read_only(&path).unwrap();
        assert_eq!(map.count().unwrap(), 1000);
        assert_eq!(map.meta("source").unwrap().as_deref(), Some("/x"));
        assert_eq!(map.lookup(&rows[7].sha1).unwrap(), Some(rows[7]));
        assert_eq!(map.lookup(&rows[9].sha256).unwrap(), Some(rows[9]));
        assert_eq!(map.lookup(&HashKind::Sha1.null_id()).unwrap(), None);
        let mut seen = Vec::new();
        map.for_each(|r| {
            seen.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, rows);
    }

    /// SOURCE's own map is read without a file appearing beside it, even
    /// in a directory whose name needs escaping in a URI.
    #[test]
    fn an_immutable_open_reads_and_leaves_no_file_behind() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a dir?#%");
        std::fs::create_dir(&sub).unwrap();
        let path = sub.join("map.sqlite");
        {
            let mut map = IdMap::open_rw(&path).unwrap();
            map.load((0..10).map(row)).unwrap();
            map.finish_load().unwrap();
            map.set_meta(DIRECTION, Direction::REVERSE.name()).unwrap();
        }
        let before: Vec<_> = std::fs::read_dir(&sub)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        let map = IdMap::open_immutable(&path).unwrap();
        assert_eq!(map.count().unwrap(), 10);
        assert_eq!(map.direction().unwrap(), Direction::REVERSE);
        drop(map);
        let after: Vec<_> = std::fs::read_dir(&sub)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(before, after);
    }

    #[test]
    fn refuses_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map.sqlite");
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        assert!(matches!(
            IdMap::open_rw(&path),
            Err(IdMapError::TooNew { found: 99, .. })
        ));
    }
}
