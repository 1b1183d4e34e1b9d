//! The window search's choices for the blob pass's chunks, kept in
//! `rehash/search-record` so that a resumed run need not search again a
//! chunk whose search an interrupted run finished.
//!
//! A kill in the write phase loses what the open segment holds (the
//! chunks appended since the last one was made durable) and the chunk
//! being searched beside them. The resumed run restarts at the chunk of
//! the first blob no segment holds durably; searching the chunks from
//! there again (up to 4096 blobs or 64 MiB of bodies each, every blob
//! diffed against a window of candidates) was most of what a kill cost.
//! The search is deterministic: a resumed run rebuilds the pass's order,
//! its chunks and the tail each chunk starts from exactly
//! (`search_tail.rs`), so the choices the search made, a base and a chain
//! length for each blob, are all it needs. It diffs each blob it still
//! has to write against its recorded base, once (`ChunkSearch::replay`),
//! and builds the next chunk's tail from the recorded chain lengths.
//!
//! The file is a chunk log (`convert/chunk_log.rs`): a chunk of choices is
//! appended as each chunk's search ends, not fsynced (a chunk a crash
//! loses or tears is dropped, which costs only the search it would have
//! saved). Its header holds a fingerprint of the pass's chunks and search
//! options: choices are taken only for the same plan. A resumed run holds
//! only the choices of the chunks from its restart on; a finished write
//! phase deletes the file.
//!
//! Layout (integers little-endian):
//! ```text
//! header  "git-rehash search record 2\n" fingerprint[32]
//! chunk   "SRCH" len:u64 payload sha256(payload)
//! payload index:u32 (base:u32 depth:u32)*   base u32::MAX: stored whole
//! ```

use std::collections::HashMap;
use std::io::Write as _;
use std::path::Path;
use std::sync::Mutex;

use sha2::Digest as _;

use crate::convert::chunk_log::{ChunkFormat, ChunkLog, remove_scratch};
use crate::convert::error::ConvertError;
use crate::hash::HashKind;

const MAGIC: &[u8] = b"git-rehash search record 2\n";
const FORMAT: ChunkFormat = ChunkFormat {
    magic: *b"SRCH",
    checksum: HashKind::Sha256,
};
const WHOLE: u32 = u32::MAX;

/// What the search chose for one object of a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The base of its delta (a table index); `None`: stored whole.
    pub base: Option<u32>,
    /// The length of the chain it is written with (0: whole).
    pub depth: u32,
}

/// The record of one pass: the choices an interrupted run left for the
/// chunks this run writes, and the log this run's choices go to.
pub struct SearchRecord {
    log: Mutex<ChunkLog>,
    recorded: HashMap<u32, Vec<Choice>>,
}

impl SearchRecord {
    /// Opens the record at `path` for the plan with `fingerprint`, holding
    /// what an interrupted run of the same plan recorded for chunks `from`
    /// on.
    pub fn open(path: &Path, fingerprint: [u8; 32], from: u32) -> Result<Self, ConvertError> {
        let mut header = MAGIC.to_vec();
        header.extend_from_slice(&fingerprint);
        let mut recorded = HashMap::new();
        let log = ChunkLog::open(path, &header, FORMAT, |payload| match decode(payload) {
            Some((index, choices)) => {
                if index >= from {
                    recorded.insert(index, choices);
                }
                true
            }
            None => false,
        })?;
        Ok(SearchRecord {
            log: Mutex::new(log),
            recorded,
        })
    }

    /// The choices an interrupted run recorded for chunk `index`, if any.
    pub fn choices(&self, index: u32) -> Option<&[Choice]> {
        self.recorded.get(&index).map(Vec::as_slice)
    }

    /// Appends the choices of chunk `index`.
    pub fn record(&self, index: u32, choices: &[Choice]) -> Result<(), ConvertError> {
        let mut log = self.log.lock().expect("no panics while holding the lock");
        log.append(false, |out| {
            out.write_all(&index.to_le_bytes())?;
            for choice in choices {
                out.write_all(&choice.base.unwrap_or(WHOLE).to_le_bytes())?;
                out.write_all(&choice.depth.to_le_bytes())?;
            }
            Ok(())
        })
    }
}

/// Removes the record (the write phase ended: nothing left to resume).
pub fn remove(path: &Path) -> Result<(), ConvertError> {
    remove_scratch(path)
}

/// What a record's choices are valid for: the pass's chunks (their
/// objects, in order) and the search's options.
pub fn fingerprint<'a>(chunks: impl Iterator<Item = &'a [u32]>, options: &str) -> [u8; 32] {
    let mut hasher = sha2::Sha256::new();
    hasher.update(options.as_bytes());
    for chunk in chunks {
        hasher.update((chunk.len() as u32).to_le_bytes());
        for at in chunk {
            hasher.update(at.to_le_bytes());
        }
    }
    hasher.finalize().into()
}

/// A chunk's index and choices, from a payload whose checksum matched.
fn decode(payload: &[u8]) -> Option<(u32, Vec<Choice>)> {
    let mut words = payload
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("four bytes")));
    if payload.len() % 8 != 4 {
        return None;
    }
    let index = words.next()?;
    let mut choices = Vec::with_capacity(payload.len() / 8);
    while let (Some(base), Some(depth)) = (words.next(), words.next()) {
        choices.push(Choice {
            base: (base != WHOLE).then_some(base),
            depth,
        });
    }
    Some((index, choices))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choices(n: u32) -> Vec<Choice> {
        (0..n)
            .map(|i| Choice {
                base: (i % 3 != 0).then_some(i * 7),
                depth: i % 5,
            })
            .collect()
    }

    #[test]
    fn the_chunks_from_the_restart_on_read_back_for_the_same_plan_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("search-record");
        let plan = fingerprint([&[1u32, 2, 3][..], &[4, 5]].into_iter(), "window 10");
        let record = SearchRecord::open(&path, plan, 0).unwrap();
        for k in 0..5 {
            record.record(k, &choices(k + 2)).unwrap();
        }
        drop(record);
        let again = SearchRecord::open(&path, plan, 2).unwrap();
        assert_eq!(again.choices(1), None, "before the restart");
        for k in 2..5 {
            assert_eq!(again.choices(k), Some(&choices(k + 2)[..]));
        }
        // A chunk searched again is appended again; either copy is right.
        again.record(3, &choices(5)).unwrap();
        drop(again);
        let third = SearchRecord::open(&path, plan, 0).unwrap();
        assert_eq!(third.choices(3), Some(&choices(5)[..]));
        assert_eq!(third.choices(0), Some(&choices(2)[..]));
        drop(third);
        let other = fingerprint([&[1u32, 2, 3][..], &[4, 6]].into_iter(), "window 10");
        assert_eq!(
            SearchRecord::open(&path, other, 0).unwrap().choices(4),
            None
        );
        let options = fingerprint([&[1u32, 2, 3][..], &[4, 5]].into_iter(), "window 20");
        assert_ne!(plan, options);
    }

    #[test]
    fn a_changed_byte_loses_the_choices_from_there_not_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("search-record");
        let plan = [7u8; 32];
        let record = SearchRecord::open(&path, plan, 0).unwrap();
        record.record(0, &choices(9)).unwrap();
        record.record(1, &choices(4)).unwrap();
        drop(record);
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() - 10;
        bytes[at] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let again = SearchRecord::open(&path, plan, 0).unwrap();
        assert_eq!(again.choices(0), Some(&choices(9)[..]));
        assert_eq!(again.choices(1), None);
        drop(again);
        remove(&path).unwrap();
        remove(&path).unwrap();
    }
}
