//! What each translated commit, tree and tag reaches, written down as the
//! map pass translates it, so that the finish step builds the bitmap and
//! the commit-graph without reading every commit and tree of the new pack
//! back (inflating them, resolving their deltas and finding each of tens
//! of millions of tree entries by name).
//!
//! The translation has just looked every reference up in the object
//! table, so this thread's memo answers again at little cost. Records go
//! to a scratch file in DEST's `rehash/` directory, not to memory: they
//! number one a tree entry, and the map pass is where a conversion's
//! memory peaks. They name objects by table index, so the file starts
//! with the table's fingerprint; a record says only what a SOURCE object
//! reaches, so a run resumed on the same object set keeps the records of
//! the run it resumes (whatever that run's segments lost: an object
//! translated again gets the same record again), and its bitmap reads
//! back from the pack only what neither run recorded. The file is deleted
//! once the indexes are written.
//!
//! The file is a chunk log (`convert/chunk_log.rs`): the records of each
//! chunk of the map pass are one chunk with its length and SHA-1, not
//! fsynced (a chunk a crash tears is dropped, and its objects are read
//! from the pack instead), so bytes the disk changed between the map pass
//! and the finish step are an error naming the file, not a wrong bitmap.
//!
//! A record, in little-endian 32-bit words: the table index, git's type
//! code, the committer time (two words, low first; 0 unless a commit),
//! the count of children, then the children's table indices. An object
//! with a reference outside the table (a submodule commit is not
//! followed; anything else would fail the bitmap's closure) gets no
//! record: the finish step reads it from the pack and says what is wrong.

use std::path::{Path, PathBuf};

use crate::convert::chunk_log::{ChunkFormat, ChunkLog};
use crate::convert::error::ConvertError;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::HashKind;
use crate::object::{ObjectKind, for_each_reference};
use crate::pack::reach::{committer_time, followed_by_walk};

const MAGIC: &[u8] = b"git-rehash reach records 2\n";
const FORMAT: ChunkFormat = ChunkFormat {
    magic: *b"RECH",
    checksum: HashKind::Sha1,
};

/// What one object reaches, as table indices.
pub struct Reached {
    pub children: Box<[u32]>,
    pub time: i64,
}

impl Reached {
    /// What the SOURCE object `body` of `kind` reaches, if every reference
    /// git's walk follows is in `table`. Blobs reach nothing: no record.
    pub fn of(table: &ObjectTable, kind: ObjectKind, body: &[u8]) -> Option<Reached> {
        if kind == ObjectKind::Blob {
            return None;
        }
        let mut children = Vec::new();
        let mut complete = true;
        table
            .with_recent(|recent| {
                let source = table.direction().source();
                for_each_reference(kind, body, source, |id, role| {
                    if !followed_by_walk(role) {
                        return;
                    }
                    match recent.find(&id) {
                        Some(at) => children.push(at),
                        None => complete = false,
                    }
                })
            })
            .ok()?;
        let time = match kind {
            ObjectKind::Commit => committer_time(body),
            _ => 0,
        };
        complete.then(|| Reached {
            children: children.into_boxed_slice(),
            time,
        })
    }

    /// Bytes it holds until written down.
    pub fn held(&self) -> u64 {
        4 * self.children.len() as u64
    }
}

/// The scratch file the map pass writes records to.
pub struct ReachRecorder {
    log: ChunkLog,
    /// The records of the chunk being appended.
    pending: Vec<u8>,
}

impl ReachRecorder {
    /// Opens the file at `path` for `table`, keeping the whole chunks an
    /// interrupted run on the same object set wrote; anything else an
    /// earlier run left is replaced.
    pub fn open(path: &Path, table: &ObjectTable) -> Result<Self, ConvertError> {
        let mut header = MAGIC.to_vec();
        header.extend_from_slice(&table.fingerprint());
        Ok(ReachRecorder {
            log: ChunkLog::open(path, &header, FORMAT, |_| true)?,
            pending: Vec::new(),
        })
    }

    pub fn record(&mut self, at: u32, kind: ObjectKind, reached: &Reached) {
        let words = [
            at,
            u32::from(kind.pack_code()),
            reached.time as u64 as u32,
            ((reached.time as u64) >> 32) as u32,
            reached.children.len() as u32,
        ];
        for w in words.iter().chain(reached.children.iter()) {
            self.pending.extend_from_slice(&w.to_le_bytes());
        }
    }

    /// Appends the records since the last chunk as one chunk.
    pub fn end_chunk(&mut self) -> Result<(), ConvertError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        self.log.append(false, |out| {
            use std::io::Write as _;
            out.write_all(&pending)
        })
    }

    /// Ends the last chunk; returns the file's path.
    pub fn finish(mut self) -> Result<PathBuf, ConvertError> {
        self.end_chunk()?;
        Ok(self.log.path().to_path_buf())
    }
}

/// The records of a whole file as [`ReachRecorder`] wrote it, with their
/// offsets in `file`, once every chunk's checksum is checked; `None` when
/// one does not match or the file was not written as records. Read as
/// they are used: held all at once, they would be some 48 bytes a commit
/// or tree at the bitmap's peak.
pub fn checked_records(file: &[u8]) -> Option<impl Iterator<Item = (usize, Record<'_>)>> {
    let start = MAGIC.len() + 32;
    let chunks = file.strip_prefix(MAGIC).and_then(|_| file.get(start..))?;
    // A range a map-pass chunk: few.
    let payloads: Vec<std::ops::Range<usize>> = FORMAT.payloads(chunks).collect();
    let end = payloads
        .last()
        .map_or(0, |p| p.end + FORMAT.checksum.raw_len());
    (end == chunks.len()).then(|| {
        payloads.into_iter().flat_map(move |payload| {
            let offset = start + payload.start;
            records(&chunks[payload]).map(move |(at, record)| (offset + at, record))
        })
    })
}

/// One record read back.
pub struct Record<'a> {
    pub at: u32,
    pub kind: ObjectKind,
    pub time: i64,
    /// The children's table indices, as little-endian words.
    children: &'a [u8],
}

impl Record<'_> {
    pub fn children(&self) -> impl Iterator<Item = u32> + '_ {
        self.children
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes(w.try_into().expect("four bytes")))
    }
}

/// The records of `bytes` with their offsets, in order; stops at a
/// truncated or unreadable one (the file is this run's own, so that is
/// only a short write).
pub fn records(bytes: &[u8]) -> impl Iterator<Item = (usize, Record<'_>)> {
    let mut offset = 0;
    std::iter::from_fn(move || {
        let bytes = &bytes[offset..];
        let word = |b: &[u8], i: usize| {
            b.get(4 * i..4 * i + 4)
                .map(|w| u32::from_le_bytes(w.try_into().expect("four bytes")))
        };
        let (at, code, lo, hi, count) = (
            word(bytes, 0)?,
            word(bytes, 1)?,
            word(bytes, 2)?,
            word(bytes, 3)?,
            word(bytes, 4)?,
        );
        let end = 20 + 4 * count as usize;
        let children = bytes.get(20..end)?;
        let kind = ObjectKind::from_pack_code(code as u8)?;
        let start = offset;
        offset += end;
        let record = Record {
            at,
            kind,
            time: ((u64::from(hi) << 32) | u64::from(lo)) as i64,
            children,
        };
        Some((start, record))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::convert::source_objects::table::{Location, test_id};

    /// A table of `n` loose objects.
    fn table_of(n: u32) -> ObjectTable {
        ObjectTable::new(
            (0..n)
                .map(|i| (test_id(i), Location::Loose { dir: 0 }))
                .collect(),
        )
    }

    #[test]
    fn records_read_back_as_written_a_resumed_run_keeps_them_and_a_changed_byte_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reach-records");
        let table = table_of(12);
        let written = [
            (7, ObjectKind::Commit, -5_000_000_000i64, vec![1, 2, 3]),
            (9, ObjectKind::Tree, 0, vec![]),
            (2, ObjectKind::Tag, 0, vec![7]),
        ];
        let record = |recorder: &mut ReachRecorder, k: usize| {
            let (at, kind, time, children) = &written[k];
            let reached = Reached {
                children: children.clone().into_boxed_slice(),
                time: *time,
            };
            recorder.record(*at, *kind, &reached);
        };
        let mut recorder = ReachRecorder::open(&path, &table).unwrap();
        record(&mut recorder, 0);
        record(&mut recorder, 1);
        recorder.end_chunk().unwrap();
        // Killed before the next chunk: a resumed run keeps the first.
        drop(recorder);
        let mut recorder = ReachRecorder::open(&path, &table).unwrap();
        record(&mut recorder, 2);
        let mut file = std::fs::read(recorder.finish().unwrap()).unwrap();
        let read: Vec<_> = checked_records(&file)
            .expect("the checksums match")
            .map(|(_, r)| (r.at, r.kind, r.time, r.children().collect::<Vec<_>>()))
            .collect();
        assert_eq!(read, written);
        let (offset, _) = checked_records(&file).unwrap().nth(1).unwrap();
        let (_, second) = records(&file[offset..]).next().unwrap();
        assert_eq!(second.at, 9);
        let last = file.len() - 3;
        file[last] ^= 1;
        assert!(checked_records(&file).is_none(), "a changed byte is caught");
        // Another object set starts anew.
        let other = table_of(13);
        ReachRecorder::open(&path, &other)
            .unwrap()
            .finish()
            .unwrap();
        let file = std::fs::read(&path).unwrap();
        assert_eq!(checked_records(&file).unwrap().count(), 0);
    }
}
