//! The window search's choices for the blob pass's last chunks, kept in
//! `rehash/search-record` so that a resumed run need not search the chunk
//! it restarts at again.
//!
//! A kill in the write phase loses the chunk being appended and the one
//! being searched beside it. The resumed run restarts at the chunk of the
//! first blob no segment holds durably; searching that chunk again (up to
//! 4096 blobs or 64 MiB of bodies, each diffed against a window of
//! candidates) was most of what a kill cost. The search is deterministic:
//! a resumed run rebuilds the pass's order, its chunks and the tail each
//! chunk starts from exactly (`search_tail.rs`), so the choices the search
//! made, a base and a chain length for each blob, are all it needs. It
//! diffs each blob it still has to write against its recorded base, once
//! (`ChunkSearch::replay`), and builds the next chunk's tail from the
//! recorded chain lengths.
//!
//! The file holds the choices of the last [`KEPT`] chunks searched,
//! written whole after each chunk's search (a new file, fsynced and
//! renamed over the old one). It starts with a fingerprint of the pass's
//! chunks and search options: choices are taken only for the same plan,
//! and a file that fails its checksum is ignored, which costs only the
//! search it would have saved. A finished run deletes it.
//!
//! Layout (integers little-endian):
//! ```text
//! header  "git-rehash search record 1\n" fingerprint[32] chunks:u32
//! chunk   index:u32 objects:u32 (base:u32 depth:u32)*   base u32::MAX: whole
//! trailer SHA-256 of everything before it
//! ```

use std::collections::VecDeque;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::Digest as _;

use crate::convert::chunk_log::remove_scratch;
use crate::convert::error::ConvertError;
use crate::hash::HashKind;
use crate::pack::hashfile::{trailer_matches, write_checksummed_file};

const MAGIC: &[u8] = b"git-rehash search record 1\n";
/// Chunks whose choices are kept: the one being appended when a kill
/// comes, the one searched beside it, and one more for a segment still
/// open across a chunk boundary.
const KEPT: usize = 3;
const WHOLE: u32 = u32::MAX;

/// What the search chose for one object of a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The base of its delta (a table index); `None`: stored whole.
    pub base: Option<u32>,
    /// The length of the chain it is written with (0: whole).
    pub depth: u32,
}

/// The record of one pass: the chunks' choices kept so far.
pub struct SearchRecord {
    path: PathBuf,
    fingerprint: [u8; 32],
    kept: Mutex<VecDeque<(u32, Vec<Choice>)>>,
}

impl SearchRecord {
    /// Opens the record at `path` for the plan with `fingerprint`: what an
    /// interrupted run of the same plan recorded, or nothing.
    pub fn open(path: &Path, fingerprint: [u8; 32]) -> Self {
        let kept = std::fs::read(path)
            .ok()
            .and_then(|content| decode(&content, &fingerprint))
            .unwrap_or_default();
        SearchRecord {
            path: path.to_path_buf(),
            fingerprint,
            kept: Mutex::new(kept),
        }
    }

    /// The choices recorded for chunk `index`, if any.
    pub fn choices(&self, index: u32) -> Option<Vec<Choice>> {
        let kept = self.kept.lock().expect("no panics while holding the lock");
        kept.iter()
            .find(|(k, _)| *k == index)
            .map(|(_, choices)| choices.clone())
    }

    /// Records the choices of chunk `index`, dropping the oldest beyond
    /// [`KEPT`], and writes the record durably.
    pub fn record(&self, index: u32, choices: Vec<Choice>) -> Result<(), ConvertError> {
        let mut kept = self.kept.lock().expect("no panics while holding the lock");
        kept.retain(|(k, _)| *k != index);
        kept.push_back((index, choices));
        while kept.len() > KEPT {
            kept.pop_front();
        }
        write_checksummed_file(&self.path, HashKind::Sha256, |out| {
            out.write_all(MAGIC)?;
            out.write_all(&self.fingerprint)?;
            out.write_all(&(kept.len() as u32).to_le_bytes())?;
            for (index, choices) in kept.iter() {
                out.write_all(&index.to_le_bytes())?;
                out.write_all(&(choices.len() as u32).to_le_bytes())?;
                for choice in choices {
                    out.write_all(&choice.base.unwrap_or(WHOLE).to_le_bytes())?;
                    out.write_all(&choice.depth.to_le_bytes())?;
                }
            }
            Ok(())
        })
        .map(|_| ())
        .map_err(ConvertError::from)
    }
}

/// Removes the record (its run finished: nothing left to resume).
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

/// The chunks of a whole record made for `fingerprint`.
fn decode(content: &[u8], fingerprint: &[u8; 32]) -> Option<VecDeque<(u32, Vec<Choice>)>> {
    if !trailer_matches(HashKind::Sha256, content) {
        return None;
    }
    let body = &content[..content.len() - HashKind::Sha256.raw_len()];
    let rest = body
        .strip_prefix(MAGIC)?
        .strip_prefix(fingerprint.as_slice())?;
    let mut words = rest
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("four bytes")));
    let mut kept = VecDeque::new();
    for _ in 0..words.next()? {
        let index = words.next()?;
        let objects = words.next()?;
        let choices = (0..objects)
            .map(|_| {
                let base = words.next()?;
                let depth = words.next()?;
                Some(Choice {
                    base: (base != WHOLE).then_some(base),
                    depth,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        kept.push_back((index, choices));
    }
    Some(kept)
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
    fn the_last_chunks_read_back_for_the_same_plan_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("search-record");
        let plan = fingerprint([&[1u32, 2, 3][..], &[4, 5]].into_iter(), "window 10");
        let record = SearchRecord::open(&path, plan);
        for k in 0..5 {
            record.record(k, choices(k + 2)).unwrap();
        }
        let again = SearchRecord::open(&path, plan);
        assert_eq!(again.choices(1), None, "older than the last {KEPT}");
        for k in 2..5 {
            assert_eq!(again.choices(k), Some(choices(k + 2)));
        }
        let other = fingerprint([&[1u32, 2, 3][..], &[4, 6]].into_iter(), "window 10");
        assert_eq!(SearchRecord::open(&path, other).choices(4), None);
        let options = fingerprint([&[1u32, 2, 3][..], &[4, 5]].into_iter(), "window 20");
        assert_ne!(plan, options);
    }

    #[test]
    fn a_changed_byte_loses_the_record_not_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("search-record");
        let plan = [7u8; 32];
        SearchRecord::open(&path, plan)
            .record(0, choices(9))
            .unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(SearchRecord::open(&path, plan).choices(0), None);
        remove(&path).unwrap();
        remove(&path).unwrap();
    }
}
