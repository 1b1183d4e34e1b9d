//! Staged map rows (migration 0005): a segment's rows, journaled as one
//! blob with the segment, and merged into `objects` in SHA-1 order once.
//!
//! Why: `objects` is clustered on SHA-1 and a segment's objects are spread
//! over all of SHA-1's range, so inserting each segment's rows into it
//! rewrote most of the table's leaf pages every time, to the write-ahead
//! log and again at each checkpoint. Staged, a conversion of 2 million
//! objects writes 1.85 GB less (8.32 -> 6.47 GB with its packs) and reads
//! 1.8 GB less; the merge at its end appends the rows in key order to an
//! empty table, 0.8 s for the 2 million.
//!
//! Who merges: the run that staged them, at its end (`IdMap::finish_load`),
//! or, after an interruption, whichever run opens the map for writing next
//! (`IdMap::open_rw`). A read-only connection cannot merge, so when it
//! finds staged rows it copies them into a temporary table of its own and
//! shadows `objects` with a view of both ([`shadow`]): every query then
//! sees the staged rows too.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;

use rusqlite::blob::Blob;
use rusqlite::{Connection, MAIN_DB, params};

use super::error::IdMapError;
use super::row::MapRow;
use super::row_batch::{self, RowBatch, StagedRow};
use super::schema::schema_has;

/// Bytes of one staged row: SHA-1, SHA-256, pack type code.
pub(super) const ROW_BYTES: usize = 20 + 32 + 1;

/// Rows read from one staged blob at a time, during a merge: the merge
/// holds this much per staged segment (~54 KiB).
const ROWS_PER_READ: usize = 1024;

/// Rows written to a staged blob at a time.
const ROWS_PER_WRITE: usize = 1024;

/// Rows inserted by one statement during a merge (3.5 MB of them).
const ROWS_PER_INSERT: usize = 1 << 16;

/// Stages the rows of segment `pack` (ascending SHA-1, as `commit_segment`
/// passes them) in the caller's transaction.
pub(super) fn stage(
    conn: &Connection,
    pack: &str,
    rows: impl ExactSizeIterator<Item = MapRow>,
) -> rusqlite::Result<()> {
    write_rows(conn, "staged_rows", pack, rows)?;
    forget_filters(conn)
}

/// The filters describe `objects` only: a staged name the filters do not
/// know would be reported missing by a reader that trusts them. Called in
/// every transaction that stages rows.
pub(super) fn forget_filters(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM prefix_filter", []).map(|_| ())
}

/// Writes the rows of segment `pack` as one blob into `table` (a table of
/// `staged_rows`' layout: `staged_rows` or `waiting_rows`), in the
/// caller's transaction. The blob is written in pieces through
/// incremental I/O, so a segment of a million objects needs no 53 MB
/// buffer (nor SQLite a copy of one).
pub(super) fn write_rows(
    conn: &Connection,
    table: &str,
    pack: &str,
    rows: impl ExactSizeIterator<Item = MapRow>,
) -> rusqlite::Result<()> {
    let len = rows.len() * ROW_BYTES;
    conn.execute(
        &format!("INSERT OR REPLACE INTO {table} (pack, rows) VALUES (?1, zeroblob(?2))"),
        params![pack, len as i64],
    )?;
    let rowid = conn.last_insert_rowid();
    if len == 0 {
        return Ok(());
    }
    let mut blob = conn.blob_open(MAIN_DB, table, "rows", rowid, false)?;
    let mut piece = Vec::with_capacity(ROWS_PER_WRITE * ROW_BYTES);
    let mut at = 0;
    let mut rows = rows.peekable();
    while rows.peek().is_some() {
        piece.clear();
        for row in rows.by_ref().take(ROWS_PER_WRITE) {
            StagedRow::encode(&row, &mut piece);
        }
        blob.write_all_at(&piece, at)?;
        at += piece.len();
    }
    debug_assert_eq!(at, len, "the iterator's length was exact");
    blob.close()
}

/// Whether the database has staged rows (a database from before
/// migration 5, opened read-only, has none).
pub(super) fn any(conn: &Connection) -> rusqlite::Result<bool> {
    Ok(schema_has(conn, "table", "staged_rows")?
        && conn.query_row("SELECT EXISTS (SELECT 1 FROM staged_rows)", [], |r| {
            r.get(0)
        })?)
}

/// How many rows are staged.
pub(super) fn count(conn: &Connection) -> rusqlite::Result<u64> {
    if !schema_has(conn, "table", "staged_rows")? {
        return Ok(0);
    }
    let bytes: i64 = conn.query_row(
        "SELECT coalesce(sum(length(rows)), 0) FROM main.staged_rows",
        [],
        |r| r.get(0),
    )?;
    Ok(bytes as u64 / ROW_BYTES as u64)
}

/// Merges every staged row into `objects`, in SHA-1 order, and empties
/// `staged_rows`: in the caller's transaction.
pub(super) fn fold(conn: &Connection, path: &Path) -> Result<(), IdMapError> {
    let sql = IdMapError::sql_at(path);
    insert_merged(conn, path, "objects")?;
    conn.execute("DELETE FROM staged_rows", []).map_err(sql)?;
    Ok(())
}

/// Inserts every staged row, merged in SHA-1 order, into `table`, a batch
/// per statement (`row_batch.rs`).
fn insert_merged(conn: &Connection, path: &Path, table: &str) -> Result<(), IdMapError> {
    let sql = IdMapError::sql_at(path);
    let mut merge = Merge::open(conn, path)?;
    let batch = RowBatch::register(conn).map_err(sql)?;
    let mut insert = conn
        .prepare(&format!(
            "INSERT OR REPLACE INTO {table} (sha1, sha256, type) \
             SELECT sha1, sha256, type FROM {}",
            row_batch::NAME
        ))
        .map_err(sql)?;
    loop {
        let mut rows = batch.take_buffer();
        while rows.len() < ROWS_PER_INSERT {
            match merge.next_row()? {
                Some(row) => rows.push(row),
                None => break,
            }
        }
        let last = rows.len() < ROWS_PER_INSERT;
        batch.put(rows);
        insert.execute([]).map_err(sql)?;
        if last {
            return Ok(());
        }
    }
}

/// For a read-only connection to a map with staged rows: copies them into
/// `temp.staged_objects` (indexed like `objects`) and creates the temporary
/// view `objects` over both, which unqualified names resolve to before the
/// table. `UNION` rather than `UNION ALL`: should a writer merge the staged
/// rows while this connection is open, a row then in both tables is still
/// one row. Returns whether it shadowed anything.
pub(super) fn shadow(conn: &Connection, path: &Path) -> Result<bool, IdMapError> {
    let sql = IdMapError::sql_at(path);
    // One snapshot for the check and the copy.
    conn.execute_batch("BEGIN DEFERRED").map_err(sql)?;
    let copied = copy_staged(conn, path);
    let end = if matches!(copied, Ok(true)) {
        "COMMIT"
    } else {
        "ROLLBACK"
    };
    conn.execute_batch(end).map_err(sql)?;
    copied
}

fn copy_staged(conn: &Connection, path: &Path) -> Result<bool, IdMapError> {
    let sql = IdMapError::sql_at(path);
    if !any(conn).map_err(sql)? {
        return Ok(false);
    }
    conn.execute_batch(
        "CREATE TEMP TABLE staged_objects (
             sha1   BLOB    NOT NULL PRIMARY KEY,
             sha256 BLOB    NOT NULL,
             type   INTEGER NOT NULL
         ) WITHOUT ROWID;",
    )
    .map_err(sql)?;
    insert_merged(conn, path, "temp.staged_objects")?;
    conn.execute_batch(
        "CREATE UNIQUE INDEX temp.staged_objects_by_dest_name ON staged_objects (sha256, type);
         CREATE TEMP VIEW objects AS
             SELECT sha1, sha256, type FROM main.objects
             UNION
             SELECT sha1, sha256, type FROM temp.staged_objects;",
    )
    .map_err(sql)?;
    Ok(true)
}

/// A k-way merge of every staged blob into one stream in SHA-1 order
/// (each blob is sorted; together they interleave).
struct Merge<'c> {
    sources: Vec<Source<'c>>,
    /// The next row of each source that has one, smallest SHA-1 on top.
    heads: BinaryHeap<Reverse<([u8; 20], usize)>>,
    path: &'c Path,
}

/// One staged blob, read a piece at a time.
struct Source<'c> {
    pack: String,
    blob: Blob<'c>,
    /// Rows read and not yet merged, and where the next one starts.
    piece: Vec<u8>,
    at: usize,
    /// Where in the blob the next piece starts.
    offset: usize,
}

impl<'c> Merge<'c> {
    fn open(conn: &'c Connection, path: &'c Path) -> Result<Self, IdMapError> {
        let sql = IdMapError::sql_at(path);
        let segments: Vec<(i64, String, i64)> = conn
            .prepare("SELECT rowid, pack, length(rows) FROM main.staged_rows ORDER BY rowid")
            .and_then(|mut stmt| {
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect()
            })
            .map_err(sql)?;
        let mut merge = Merge {
            sources: Vec::with_capacity(segments.len()),
            heads: BinaryHeap::with_capacity(segments.len()),
            path,
        };
        for (rowid, pack, len) in segments {
            if !(len as usize).is_multiple_of(ROW_BYTES) {
                return Err(merge.corrupt(&pack, format!("its staged rows are {len} bytes")));
            }
            let blob = conn
                .blob_open(MAIN_DB, "staged_rows", "rows", rowid, true)
                .map_err(sql)?;
            merge.sources.push(Source {
                pack,
                blob,
                piece: Vec::new(),
                at: 0,
                offset: 0,
            });
            let k = merge.sources.len() - 1;
            merge.advance(k)?;
        }
        Ok(merge)
    }

    fn corrupt(&self, pack: &str, what: String) -> IdMapError {
        IdMapError::CorruptRow {
            path: self.path.to_path_buf(),
            reason: format!("segment {pack}: {what}"),
        }
    }

    /// Queues source `k`'s next row, reading its next piece when needed.
    fn advance(&mut self, k: usize) -> Result<(), IdMapError> {
        let source = &mut self.sources[k];
        if source.at == source.piece.len() {
            let left = source.blob.len() - source.offset;
            let take = left.min(ROWS_PER_READ * ROW_BYTES);
            if take == 0 {
                return Ok(());
            }
            source.piece.resize(take, 0);
            source
                .blob
                .read_at_exact(&mut source.piece, source.offset)
                .map_err(IdMapError::sql_at(self.path))?;
            source.offset += take;
            source.at = 0;
        }
        let sha1 = source.piece[source.at..source.at + 20]
            .try_into()
            .expect("20 bytes");
        self.heads.push(Reverse((sha1, k)));
        Ok(())
    }

    fn next_row(&mut self) -> Result<Option<StagedRow>, IdMapError> {
        let Some(Reverse((_, k))) = self.heads.pop() else {
            return Ok(None);
        };
        let source = &mut self.sources[k];
        let row = StagedRow::decode(&source.piece[source.at..source.at + ROW_BYTES]);
        source.at += ROW_BYTES;
        if !(1..=4).contains(&row.code) {
            let pack = self.sources[k].pack.clone();
            return Err(self.corrupt(&pack, format!("type code {}", row.code)));
        }
        self.advance(k)?;
        Ok(Some(row))
    }
}
