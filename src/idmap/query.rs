//! Answering "which object is this id?" from the map: full or abbreviated
//! names on either side, with git's notion of ambiguity.
//!
//! A hex string names an object by prefix (git's `get_short_oid`): on the
//! SHA-1 side it is a range scan of the clustered primary key, on the
//! SHA-256 side a range scan of `objects_by_dest_name`. SQLite compares blobs
//! with `memcmp` and then by length, so the rows starting with the prefix
//! are exactly `lo <= id < hi`, where `lo` is the prefix's bytes (an odd
//! trailing digit filling the high half of the last byte) and `hi` is `lo`
//! plus one in its last digit. Two matching rows are enough to know the
//! prefix is ambiguous, so every scan stops after two (`LIMIT 2`); a full
//! name is an equality probe instead.
//!
//! Within a snapshot (`--batch`), a side whose prefix filter rules the id out
//! is not probed at all (see `lookup_aids`): a lookup is then one B-tree
//! descent instead of two, the cost that dominates on a large map.

use rusqlite::Statement;

use super::error::IdMapError;
use super::lookup_aids::{PrefixFilter, Side};
use super::row::MapRow;
use super::store::{IdMap, MMAP_SIZE};
use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;

/// Shortest abbreviation accepted (git's `MINIMUM_ABBREV`).
pub const MIN_ABBREV: usize = 4;

/// A validated, lower-cased hex name or abbreviation of 4 to 64 digits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct HexPrefix {
    digits: [u8; 64],
    len: usize,
}

/// Why a string is not usable as an object name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadId {
    #[error("{0:?} is not a hexadecimal object name")]
    NotHex(String),
    #[error("{0:?} is too short: an abbreviation needs at least {MIN_ABBREV} hex digits")]
    TooShort(String),
    #[error("{0:?} is too long: a SHA-256 name has 64 hex digits")]
    TooLong(String),
}

impl HexPrefix {
    /// Parses 4 to 64 hex digits of either case.
    pub fn parse(text: &[u8]) -> Result<Self, BadId> {
        let quoted = || String::from_utf8_lossy(text).into_owned();
        if !text.iter().all(u8::is_ascii_hexdigit) {
            return Err(BadId::NotHex(quoted()));
        }
        if text.len() < MIN_ABBREV {
            return Err(BadId::TooShort(quoted()));
        }
        if text.len() > HashKind::Sha256.hex_len() {
            return Err(BadId::TooLong(quoted()));
        }
        let mut digits = [0u8; 64];
        for (d, c) in digits.iter_mut().zip(text) {
            *d = c.to_ascii_lowercase();
        }
        Ok(HexPrefix {
            digits,
            len: text.len(),
        })
    }

    /// The lower-case digits.
    pub fn as_bytes(&self) -> &[u8] {
        &self.digits[..self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the prefix could name an object of `kind` (it is not longer
    /// than that kind's names).
    pub fn fits(&self, kind: HashKind) -> bool {
        self.len <= kind.hex_len()
    }

    /// The byte range `[lo, hi)` of the ids starting with this prefix.
    fn range(&self) -> ByteRange {
        let nibble = |c: u8| match c {
            b'0'..=b'9' => c - b'0',
            _ => c - b'a' + 10,
        };
        let mut lo = [0u8; 33];
        for (i, &c) in self.as_bytes().iter().enumerate() {
            let shift = if i % 2 == 0 { 4 } else { 0 };
            lo[i / 2] |= nibble(c) << shift;
        }
        let lo_len = self.len.div_ceil(2);
        // hi = lo + one unit of the last digit; an odd prefix's last digit
        // is the high half of its last byte.
        let mut hi = lo;
        let mut step: u8 = if self.len % 2 == 1 { 0x10 } else { 1 };
        let mut carry = true;
        for byte in hi[..lo_len].iter_mut().rev() {
            let (sum, overflow) = byte.overflowing_add(step);
            *byte = sum;
            if !overflow {
                carry = false;
                break;
            }
            step = 1;
        }
        let hi_len = if carry {
            // All digits were f: no upper bound. 33 bytes of 0xff sort after
            // every 20- or 32-byte id.
            hi = [0xff; 33];
            33
        } else {
            lo_len
        };
        ByteRange {
            lo,
            lo_len,
            hi,
            hi_len,
        }
    }
}

impl std::fmt::Debug for HexPrefix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(self.as_bytes()))
    }
}

struct ByteRange {
    lo: [u8; 33],
    lo_len: usize,
    hi: [u8; 33],
    hi_len: usize,
}

impl ByteRange {
    fn lo(&self) -> &[u8] {
        &self.lo[..self.lo_len]
    }
    fn hi(&self) -> &[u8] {
        &self.hi[..self.hi_len]
    }
}

/// What an id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// Exactly one object.
    Found(MapRow),
    /// No object.
    Missing,
    /// Two or more objects (on one side, or one on each side).
    Ambiguous,
}

/// Up to two distinct rows: all a resolution needs to know.
#[derive(Default)]
struct Matches {
    rows: [Option<MapRow>; 2],
    ambiguous: bool,
}

impl Matches {
    fn push(&mut self, row: MapRow) {
        match self.rows {
            [None, _] => self.rows[0] = Some(row),
            [Some(first), None] if first.sha1 != row.sha1 => self.rows[1] = Some(row),
            [Some(_), None] => {}
            [Some(first), Some(second)] => {
                if first.sha1 != row.sha1 && second.sha1 != row.sha1 {
                    self.ambiguous = true;
                }
            }
        }
    }

    fn is_ambiguous(&self) -> bool {
        self.ambiguous || self.rows[1].is_some()
    }

    fn resolution(&self) -> Resolution {
        match self.rows {
            _ if self.is_ambiguous() => Resolution::Ambiguous,
            [Some(row), None] => Resolution::Found(row),
            _ => Resolution::Missing,
        }
    }
}

const SELECT_BY_SHA1: &str = "SELECT sha1, sha256, type FROM objects \
     WHERE sha1 >= ?1 AND sha1 < ?2 ORDER BY sha1 LIMIT 2";
const SELECT_BY_SHA256: &str = "SELECT sha1, sha256, type FROM objects \
     WHERE sha256 >= ?1 AND sha256 < ?2 ORDER BY sha256 LIMIT 2";
/// Full names: an equality probe, a little cheaper than the range (the
/// keys are unique, and the cursor need not step to a second row).
const SELECT_SHA1_EQ: &str = "SELECT sha1, sha256, type FROM objects WHERE sha1 = ?1";
const SELECT_SHA256_EQ: &str = "SELECT sha1, sha256, type FROM objects WHERE sha256 = ?1";
const SELECT_COMMITTISH_BY_SHA1: &str = "SELECT sha1, sha256, type FROM objects \
     WHERE sha1 >= ?1 AND sha1 < ?2 AND type IN (1, 4) ORDER BY sha1 LIMIT 2";
const SELECT_COMMITTISH_BY_SHA256: &str = "SELECT sha1, sha256, type FROM objects \
     WHERE sha256 >= ?1 AND sha256 < ?2 AND type IN (1, 4) ORDER BY sha256 LIMIT 2";

/// Resolves ids against open maps with prepared statements, optionally
/// inside one read transaction per map (one WAL snapshot for a whole
/// batch). Several maps (a DEST's own and those it shares with, see
/// `shared_maps.rs`) answer as one: an object is found in whichever holds it,
/// and a prefix is ambiguous when the objects of all of them together make
/// it so.
pub struct Resolver<'m> {
    probes: Vec<Probe<'m>>,
}

/// One map's statements.
struct Probe<'m> {
    map: &'m IdMap,
    by_sha1: Statement<'m>,
    by_dest_name: Statement<'m>,
    sha1_eq: Statement<'m>,
    sha256_eq: Statement<'m>,
    committish_by_sha1: Statement<'m>,
    committish_by_dest_name: Statement<'m>,
    /// The prefix filters of the SHA-1 and SHA-256 sides, opened with the
    /// snapshot (they are only valid within it).
    filters: [Option<PrefixFilter<'m>>; 2],
    in_snapshot: bool,
}

impl<'m> Resolver<'m> {
    pub fn new(map: &'m IdMap) -> Result<Self, IdMapError> {
        Self::over(std::slice::from_ref(map))
    }

    /// A resolver answering from all of `maps` together.
    pub fn over(maps: &'m [IdMap]) -> Result<Self, IdMapError> {
        Ok(Resolver {
            probes: maps.iter().map(Probe::new).collect::<Result<_, _>>()?,
        })
    }

    /// Answers every following query from one snapshot of each database
    /// (see `Probe::hold_snapshot`).
    pub fn hold_snapshot(&mut self) -> Result<(), IdMapError> {
        self.probes.iter_mut().try_for_each(Probe::hold_snapshot)
    }

    /// What `prefix` names among all objects, looking at both sides: up to
    /// 40 digits may be a SHA-1 or a SHA-256 prefix, longer only SHA-256.
    pub fn resolve(&mut self, prefix: &HexPrefix) -> Result<Resolution, IdMapError> {
        let range = prefix.range();
        let mut matches = Matches::default();
        for probe in &mut self.probes {
            if matches.is_ambiguous() {
                break;
            }
            probe.resolve(prefix, &range, &mut matches)?;
        }
        Ok(matches.resolution())
    }

    /// What `prefix` names among commits and tags on the `side` only
    /// (git's `core.disambiguate=committish`): what an id of that hash
    /// quoted in prose usually means.
    pub fn resolve_committish(
        &mut self,
        prefix: &HexPrefix,
        side: HashKind,
    ) -> Result<Resolution, IdMapError> {
        let mut matches = Matches::default();
        if prefix.fits(side) {
            let range = prefix.range();
            for probe in &mut self.probes {
                let stmt = match side {
                    HashKind::Sha1 => &mut probe.committish_by_sha1,
                    HashKind::Sha256 => &mut probe.committish_by_dest_name,
                };
                scan(probe.map, stmt, &range, &mut matches)?;
            }
        }
        Ok(matches.resolution())
    }

    /// The shortest abbreviation of `id`, at least `at_least` digits, that
    /// names only it among the names of its hash in the maps (git's
    /// `repo_find_unique_abbrev` for the maps' objects).
    pub fn unique_len(&mut self, id: &ObjectId, at_least: usize) -> Result<usize, IdMapError> {
        let hex = id.to_hex();
        let full = id.kind().hex_len();
        let mut len = at_least.clamp(MIN_ABBREV, full);
        while len < full {
            let prefix = HexPrefix::parse(&hex.as_bytes()[..len]).expect("lower-case hex digits");
            let range = prefix.range();
            let mut matches = Matches::default();
            for probe in &mut self.probes {
                let stmt = match id.kind() {
                    HashKind::Sha1 => &mut probe.by_sha1,
                    HashKind::Sha256 => &mut probe.by_dest_name,
                };
                scan(probe.map, stmt, &range, &mut matches)?;
            }
            if !matches.is_ambiguous() {
                break;
            }
            len += 1;
        }
        Ok(len)
    }
}

impl<'m> Probe<'m> {
    fn new(map: &'m IdMap) -> Result<Self, IdMapError> {
        // Memory-map the file: a lookup then reads B-tree pages in place
        // instead of copying each one through a read(2) into SQLite's page
        // cache, which halves the cost of a random lookup. Only address
        // space is reserved; SQLite maps at most the file's size.
        map.conn
            .pragma_update(None, "mmap_size", MMAP_SIZE)
            .map_err(|e| map.sql(e))?;
        let prepare = |sql| map.conn.prepare(sql).map_err(|e| map.sql(e));
        Ok(Probe {
            map,
            by_sha1: prepare(SELECT_BY_SHA1)?,
            by_dest_name: prepare(SELECT_BY_SHA256)?,
            sha1_eq: prepare(SELECT_SHA1_EQ)?,
            sha256_eq: prepare(SELECT_SHA256_EQ)?,
            committish_by_sha1: prepare(SELECT_COMMITTISH_BY_SHA1)?,
            committish_by_dest_name: prepare(SELECT_COMMITTISH_BY_SHA256)?,
            filters: [None, None],
            in_snapshot: false,
        })
    }

    /// Answers every following query from one snapshot of the database (one
    /// read transaction), which saves taking the read lock per query. A
    /// writer is never blocked by it (WAL); it only sees the snapshot end
    /// when this resolver is dropped. Within the snapshot the prefix
    /// filters are used, when the map has current ones (never over staged
    /// rows: the filters describe `objects` alone).
    fn hold_snapshot(&mut self) -> Result<(), IdMapError> {
        if !self.in_snapshot {
            let sql = |e| self.map.sql(e);
            self.map.conn.execute_batch("BEGIN DEFERRED").map_err(sql)?;
            self.in_snapshot = true;
            if self.map.shadowed {
                return Ok(());
            }
            for (filter, side) in self.filters.iter_mut().zip([Side::Sha1, Side::Sha256]) {
                *filter = PrefixFilter::open(&self.map.conn, side).map_err(sql)?;
            }
        }
        Ok(())
    }

    /// Whether some name on side `i` (0 SHA-1, 1 SHA-256) may start with
    /// the prefix: always, without a filter.
    fn may_match(
        &self,
        i: usize,
        prefix: &HexPrefix,
        range: &ByteRange,
    ) -> Result<bool, IdMapError> {
        match &self.filters[i] {
            Some(filter) => filter
                .may_start_with(range.lo(), prefix.len())
                .map_err(|e| self.map.sql(e)),
            None => Ok(true),
        }
    }

    /// Adds what `prefix` names in this map, on both sides, to `matches`.
    fn resolve(
        &mut self,
        prefix: &HexPrefix,
        range: &ByteRange,
        matches: &mut Matches,
    ) -> Result<(), IdMapError> {
        // A full SHA-1 name is almost always one: consulting the filter
        // first would only add a cache miss to the probe it cannot avoid.
        let full_sha1 = prefix.len() == HashKind::Sha1.hex_len();
        if prefix.fits(HashKind::Sha1) && (full_sha1 || self.may_match(0, prefix, range)?) {
            let stmt = if full_sha1 {
                &mut self.sha1_eq
            } else {
                &mut self.by_sha1
            };
            scan(self.map, stmt, range, matches)?;
        }
        if !matches.is_ambiguous() && self.may_match(1, prefix, range)? {
            let stmt = if prefix.len() == HashKind::Sha256.hex_len() {
                &mut self.sha256_eq
            } else {
                &mut self.by_dest_name
            };
            scan(self.map, stmt, range, matches)?;
        }
        Ok(())
    }
}

impl Drop for Probe<'_> {
    fn drop(&mut self) {
        if self.in_snapshot {
            // A read transaction has nothing to commit; ending it only
            // releases the snapshot.
            let _ = self.map.conn.execute_batch("COMMIT");
        }
    }
}

fn scan(
    map: &IdMap,
    stmt: &mut Statement<'_>,
    range: &ByteRange,
    matches: &mut Matches,
) -> Result<(), IdMapError> {
    let mut rows = if stmt.parameter_count() == 1 {
        stmt.query([range.lo()])
    } else {
        stmt.query([range.lo(), range.hi()])
    }
    .map_err(|e| map.sql(e))?;
    while let Some(row) = rows.next().map_err(|e| map.sql(e))? {
        matches.push(decode_row(map, row)?);
    }
    Ok(())
}

/// Decodes `(sha1, sha256, type)` without allocating.
pub(super) fn decode_row(map: &IdMap, row: &rusqlite::Row<'_>) -> Result<MapRow, IdMapError> {
    let corrupt = |reason: String| IdMapError::CorruptRow {
        path: map.path().to_path_buf(),
        reason,
    };
    let blob = |i: usize| -> Result<&[u8], IdMapError> {
        row.get_ref(i)
            .map_err(|e| map.sql(e))?
            .as_blob()
            .map_err(|e| corrupt(format!("column {i}: {e}")))
    };
    let (sha1, sha256) = (blob(0)?, blob(1)?);
    let code: i64 = row.get(2).map_err(|e| map.sql(e))?;
    let sha1 = ObjectId::from_raw(HashKind::Sha1, sha1)
        .ok_or_else(|| corrupt(format!("sha1 of {} bytes", sha1.len())))?;
    let sha256 = ObjectId::from_raw(HashKind::Sha256, sha256)
        .ok_or_else(|| corrupt(format!("sha256 of {} bytes for {sha1}", sha256.len())))?;
    let kind = u8::try_from(code)
        .ok()
        .and_then(ObjectKind::from_pack_code)
        .ok_or_else(|| corrupt(format!("type {code} for {sha1}")))?;
    Ok(MapRow { sha1, sha256, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range_of(hex: &str) -> (Vec<u8>, Vec<u8>) {
        let r = HexPrefix::parse(hex.as_bytes()).unwrap().range();
        (r.lo().to_vec(), r.hi().to_vec())
    }

    #[test]
    fn even_prefix_range() {
        assert_eq!(range_of("abcd"), (vec![0xab, 0xcd], vec![0xab, 0xce]));
        assert_eq!(range_of("abff"), (vec![0xab, 0xff], vec![0xac, 0x00]));
    }

    #[test]
    fn odd_prefix_range_uses_the_high_half_byte() {
        assert_eq!(
            range_of("abcde"),
            (vec![0xab, 0xcd, 0xe0], vec![0xab, 0xcd, 0xf0])
        );
        assert_eq!(
            range_of("abcdf"),
            (vec![0xab, 0xcd, 0xf0], vec![0xab, 0xce, 0x00])
        );
        assert_eq!(range_of("ABCDF"), range_of("abcdf"));
    }

    #[test]
    fn all_f_prefix_has_no_upper_bound() {
        let (lo, hi) = range_of("fffff");
        assert_eq!(lo, vec![0xff, 0xff, 0xf0]);
        assert!(hi.as_slice() > [0xff; 32].as_slice());
    }

    #[test]
    fn rejects_bad_ids() {
        assert!(matches!(HexPrefix::parse(b"abc"), Err(BadId::TooShort(_))));
        assert!(matches!(HexPrefix::parse(b"abcg"), Err(BadId::NotHex(_))));
        assert!(matches!(
            HexPrefix::parse(&[b'a'; 65]),
            Err(BadId::TooLong(_))
        ));
        assert!(HexPrefix::parse(&[b'a'; 64]).is_ok());
    }
}
