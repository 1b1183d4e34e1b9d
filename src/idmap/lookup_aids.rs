//! What makes a lookup one B-tree descent instead of two or three.
//!
//! A random lookup in a 2-million-row map costs about one cold leaf page per
//! B-tree it descends (the upper levels stay in cache), and that cache/TLB
//! miss, not SQLite's statement machinery, is most of its time. An id of up
//! to 40 digits must be looked up on both sides, and a SHA-256 lookup went
//! through the index and then the table for the type. So:
//!
//! - `objects_by_dest_name` is `(sha256, type)`: with the primary key (sha1)
//!   that every index of a WITHOUT ROWID table carries, it covers the
//!   query, and a SHA-256 lookup never visits the table. Uniqueness on
//!   `(sha256, type)` instead of `sha256` differs only for two objects of
//!   different types with one SHA-256, i.e. a SHA-256 collision.
//! - `prefix_filter` holds, per side, a bitmap of the names' first `bits`
//!   bits (about 16 bits of map per name, so ~6% of bits are set). When the
//!   id's bit is clear on a side, no name there starts with it and that
//!   side's descent is skipped; only a set bit (a real match, or ~6% by
//!   chance) costs the descent. Ids are hash outputs, uniform, so their
//!   leading bits need no further hashing. The resolver reads single bytes
//!   through SQLite's incremental blob I/O: memory stays flat and opening
//!   costs nothing, however large the map.
//!
//! Both are built after a load ([`build`], from `IdMap::finish_load`), not
//! maintained row by row during the bulk load. Triggers then empty
//! `prefix_filter` on any later change of `objects`, in the writer's
//! transaction, so a reader never sees a filter older than the rows.

use rusqlite::blob::Blob;
use rusqlite::{Connection, MAIN_DB, OptionalExtension, Transaction};

use super::schema::schema_has;

/// `prefix_filter.side` of each side.
#[derive(Clone, Copy)]
pub(super) enum Side {
    Sha1 = 1,
    Sha256 = 2,
}

/// Bits of filter per name, as a power of two: 16 keeps false positives
/// near 6% for 2 bytes per name and side.
const BITS_PER_NAME_LOG2: u32 = 4;
/// Filter sizes: 32 bytes up to 128 MiB (maps of 67 M objects and more
/// just get more false positives).
const MIN_BITS: u32 = 8;
const MAX_BITS: u32 = 30;

pub(super) fn filter_bits(names: u64) -> u32 {
    let wanted = 64 - names.max(1).leading_zeros() + BITS_PER_NAME_LOG2;
    wanted.clamp(MIN_BITS, MAX_BITS)
}

/// The filter bit of a name or of a prefix of at least `bits` bits.
fn key(first: &[u8], bits: u32) -> usize {
    let mut word = [0u8; 4];
    for (w, b) in word.iter_mut().zip(first) {
        *w = *b;
    }
    (u32::from_be_bytes(word) >> (32 - bits)) as usize
}

/// Page cache for the index build, in KiB: SQLite's default.
const SORTER_CACHE_KIB: i64 = 2000;

/// Makes `objects_by_dest_name` the covering `(sha256, type)` index and fills
/// both filters from the current rows. Runs in the caller's transaction.
pub(super) fn build(conn: &Connection) -> rusqlite::Result<()> {
    let columns: i64 = conn.query_row(
        "SELECT count(*) FROM pragma_index_info('objects_by_dest_name')",
        [],
        |r| r.get(0),
    )?;
    let filters: i64 = conn.query_row("SELECT count(*) FROM prefix_filter", [], |r| r.get(0))?;
    if columns == 2 && filters == 2 {
        // Nothing was added since the filters were built (the triggers
        // would have emptied them): a no-op run costs nothing here.
        return Ok(());
    }
    if columns == 1 {
        // Built by an older version on (sha256) alone.
        conn.execute_batch("DROP INDEX objects_by_dest_name")?;
    }
    // SQLite's sorter may use helper threads for the index build (it is
    // the last sequential step of a conversion), as many as --jobs allows.
    let helpers = rayon::current_num_threads().clamp(1, 8);
    conn.pragma_update(None, "threads", helpers as i64)?;
    // The sorter keeps up to the page cache's size in memory before it
    // spills to temporary files; a writing connection's cache is kept small
    // for the journal's appends (`store::WRITE_CACHE_KIB`), so the build
    // gets SQLite's default back.
    conn.pragma_update(None, "cache_size", -SORTER_CACHE_KIB)?;
    conn.execute_batch(
        "CREATE UNIQUE INDEX IF NOT EXISTS objects_by_dest_name ON objects (sha256, type);
         DELETE FROM prefix_filter;",
    )?;
    let names: i64 = conn.query_row("SELECT count(*) FROM objects", [], |r| r.get(0))?;
    let bits = filter_bits(names as u64);
    let mut maps = [vec![0u8; 1 << (bits - 3)], vec![0u8; 1 << (bits - 3)]];
    let mut stmt = conn.prepare("SELECT sha1, sha256 FROM objects")?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        for (map, column) in maps.iter_mut().zip([0, 1]) {
            let k = key(row.get_ref(column)?.as_blob()?, bits);
            map[k >> 3] |= 1 << (k & 7);
        }
    }
    for (map, side) in maps.iter().zip([Side::Sha1, Side::Sha256]) {
        conn.execute(
            "INSERT INTO prefix_filter (side, bits, map) VALUES (?1, ?2, ?3)",
            rusqlite::params![side as i64, bits, map],
        )?;
    }
    // Created here rather than in the migration so the first bulk load does
    // not run them for every row; until then there is no filter to protect.
    conn.execute_batch(
        "CREATE TRIGGER IF NOT EXISTS prefix_filter_stale_on_insert
             AFTER INSERT ON objects BEGIN DELETE FROM prefix_filter; END;
         CREATE TRIGGER IF NOT EXISTS prefix_filter_stale_on_update
             AFTER UPDATE OF sha1, sha256 ON objects BEGIN DELETE FROM prefix_filter; END;",
    )
}

/// Migration 4's step: a map indexed by an older version (it has the
/// reverse index) gets the lookup aids now; a map not yet indexed gets them
/// from `finish_load` like a new one.
pub(super) fn upgrade_indexed_map(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    if schema_has(tx, "index", "objects_by_dest_name")? {
        build(tx)
    } else {
        Ok(())
    }
}

/// One side's filter, read in place.
pub(super) struct PrefixFilter<'c> {
    blob: Blob<'c>,
    pub(super) bits: u32,
}

impl<'c> PrefixFilter<'c> {
    /// The side's filter, or `None` when the map has none (not yet indexed,
    /// changed since, or written by an older version).
    pub(super) fn open(conn: &'c Connection, side: Side) -> rusqlite::Result<Option<Self>> {
        if !schema_has(conn, "table", "prefix_filter")? {
            return Ok(None);
        }
        let bits: Option<u32> = conn
            .query_row(
                "SELECT bits FROM prefix_filter WHERE side = ?1",
                [side as i64],
                |r| r.get(0),
            )
            .optional()?;
        let Some(bits) = bits else { return Ok(None) };
        let blob = conn.blob_open(MAIN_DB, "prefix_filter", "map", side as i64, true)?;
        if blob.len() != 1 << (bits - 3) {
            return Ok(None);
        }
        Ok(Some(PrefixFilter { blob, bits }))
    }

    /// False when no name on this side starts with the prefix whose bytes
    /// begin with `first` and which has `digits` hex digits; true when one
    /// may (always, for prefixes shorter than the filter's key).
    pub(super) fn may_start_with(&self, first: &[u8], digits: usize) -> rusqlite::Result<bool> {
        if digits * 4 < self.bits as usize {
            return Ok(true);
        }
        let k = key(first, self.bits);
        let mut byte = [0u8];
        self.blob.read_at_exact(&mut byte, k >> 3)?;
        Ok(byte[0] & (1 << (k & 7)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_size_follows_the_map() {
        assert_eq!(filter_bits(0), MIN_BITS);
        assert_eq!(filter_bits(2_000_000), 25);
        assert_eq!(filter_bits(u64::MAX >> 8), MAX_BITS);
    }

    #[test]
    fn key_is_the_leading_bits() {
        assert_eq!(key(&[0xab, 0xcd, 0xef, 0x12, 0x34], 8), 0xab);
        assert_eq!(key(&[0xab, 0xcd, 0xef, 0x12], 25), 0xabcdef12 >> 7);
    }
}
