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
//! memory peaks. The file serves the run that wrote it (table indices are
//! this run's) and is deleted once the indexes are written; a run begins
//! it anew.
//!
//! The file is checksummed as git's files are (`pack/hashfile.rs`, SHA-1
//! trailer), so bytes the disk changed between the map pass and the finish
//! step are an error naming the file, not a wrong bitmap.
//!
//! A record, in little-endian 32-bit words: the table index, git's type
//! code, the committer time (two words, low first; 0 unless a commit),
//! the count of children, then the children's table indices. An object
//! with a reference outside the table (a submodule commit is not
//! followed; anything else would fail the bitmap's closure) gets no
//! record: the finish step reads it from the pack and says what is wrong.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::convert::error::ConvertError;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::HashKind;
use crate::object::{ObjectKind, for_each_reference};
use crate::pack::hashfile::{HashFile, trailer_matches};
use crate::pack::reach::{committer_time, followed_by_walk};

/// The checksum the file ends with.
const TRAILER: HashKind = HashKind::Sha1;

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
    path: PathBuf,
    out: HashFile<BufWriter<File>>,
}

impl ReachRecorder {
    /// Begins the file at `path`, replacing what an earlier run left.
    pub fn create(path: &Path) -> Result<Self, ConvertError> {
        let file = File::create(path).map_err(|e| ConvertError::io(path, e))?;
        Ok(ReachRecorder {
            path: path.to_owned(),
            out: HashFile::new(BufWriter::with_capacity(1 << 20, file), TRAILER),
        })
    }

    pub fn record(
        &mut self,
        at: u32,
        kind: ObjectKind,
        reached: &Reached,
    ) -> Result<(), ConvertError> {
        let mut words = [0u32; 5];
        words[0] = at;
        words[1] = u32::from(kind.pack_code());
        words[2] = reached.time as u64 as u32;
        words[3] = ((reached.time as u64) >> 32) as u32;
        words[4] = reached.children.len() as u32;
        let write = |out: &mut HashFile<BufWriter<File>>| -> std::io::Result<()> {
            for w in words.iter().chain(reached.children.iter()) {
                out.write_all(&w.to_le_bytes())?;
            }
            Ok(())
        };
        write(&mut self.out).map_err(|e| ConvertError::io(&self.path, e))
    }

    /// Ends the file with its checksum; returns its path.
    pub fn finish(self) -> Result<PathBuf, ConvertError> {
        let ReachRecorder { path, out } = self;
        let (buffered, _) = out
            .finish_with_trailer()
            .map_err(|e| ConvertError::io(&path, e))?;
        buffered
            .into_inner()
            .map_err(|e| ConvertError::io(&path, e.into_error()))?;
        Ok(path)
    }
}

/// The records of a whole file as [`ReachRecorder`] wrote it, once its
/// checksum is checked; `None` when the checksum does not match.
pub fn checked_body(file: &[u8]) -> Option<&[u8]> {
    trailer_matches(TRAILER, file).then(|| &file[..file.len() - TRAILER.raw_len()])
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

    #[test]
    fn records_read_back_as_written_a_short_write_ends_them_and_a_changed_byte_is_caught() {
        let dir = std::env::temp_dir().join(format!("reach-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("reach-records");
        let mut recorder = ReachRecorder::create(&path).unwrap();
        let written = [
            (7, ObjectKind::Commit, -5_000_000_000i64, vec![1, 2, 3]),
            (9, ObjectKind::Tree, 0, vec![]),
            (2, ObjectKind::Tag, 0, vec![7]),
        ];
        for (at, kind, time, children) in &written {
            let reached = Reached {
                children: children.clone().into_boxed_slice(),
                time: *time,
            };
            recorder.record(*at, *kind, &reached).unwrap();
        }
        let mut file = std::fs::read(recorder.finish().unwrap()).unwrap();
        let bytes = checked_body(&file).expect("the checksum matches");
        let read: Vec<_> = records(bytes)
            .map(|(_, r)| (r.at, r.kind, r.time, r.children().collect::<Vec<_>>()))
            .collect();
        assert_eq!(read, written);
        assert_eq!(records(&bytes[..bytes.len() - 1]).count(), 2);
        file[4] ^= 1;
        assert!(checked_body(&file).is_none(), "a changed byte is caught");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
