//! A file a run appends to in checksummed chunks, which the next run takes
//! up to the last whole one: the scan's checkpoint and the map pass's
//! reach records.
//!
//! The file starts with a header saying what its chunks are valid for (a
//! magic line and a fingerprint of the object set): a file with another
//! header is started anew. Each chunk has its own length and checksum, so
//! a chunk a kill cut short (or a crash left unwritten) is detected and
//! dropped: opening truncates the file back to the last whole chunk
//! before appending.
//!
//! Layout (integers little-endian):
//! ```text
//! header  the caller's bytes
//! chunk   magic[4] len:u64 payload[len] checksum(payload)
//! ```
//! A chunk's length is written last, over a 0, so a chunk cut short
//! anywhere reads as torn.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use crate::convert::error::ConvertError;
use crate::hash::HashKind;
use crate::pack::hashfile::{HashFile, trailer_matches};

/// What a log's chunks look like: their magic and checksum.
#[derive(Clone, Copy)]
pub struct ChunkFormat {
    pub magic: [u8; 4],
    pub checksum: HashKind,
}

impl ChunkFormat {
    /// The whole, intact chunks of `bytes` (a log's content after its
    /// header), in order: each payload's range in `bytes`. Stops at the
    /// first chunk that is not whole; the end of the last one is where
    /// the returned iterator's ranges stop.
    pub fn payloads(self, bytes: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
        let mut at = 0usize;
        std::iter::from_fn(move || {
            let (payload, used) = self.next_chunk(&bytes[at..])?;
            let start = at + payload.start;
            at += used;
            Some(start..start + payload.len())
        })
    }

    /// The next whole, intact chunk of `rest`: its payload's range in
    /// `rest`, and the chunk's whole length.
    fn next_chunk(self, rest: &[u8]) -> Option<(Range<usize>, usize)> {
        let (magic, after) = rest.split_first_chunk::<4>()?;
        if *magic != self.magic {
            return None;
        }
        let (len, after) = after.split_first_chunk::<8>()?;
        let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
        let sum = self.checksum.raw_len();
        let chunk = after.get(..len.checked_add(sum)?)?;
        trailer_matches(self.checksum, chunk).then_some((12..12 + len, 12 + len + sum))
    }
}

/// The open log, positioned after its last whole chunk.
pub struct ChunkLog {
    file: File,
    path: PathBuf,
    format: ChunkFormat,
}

impl ChunkLog {
    /// Opens the log at `path` for chunks valid under `header`, calling
    /// `take(payload)` for each whole chunk in order until it returns
    /// false; what follows the last chunk taken is cut off. A missing
    /// file, or one with another header, starts empty.
    pub fn open(
        path: &Path,
        header: &[u8],
        format: ChunkFormat,
        mut take: impl FnMut(&[u8]) -> bool,
    ) -> Result<Self, ConvertError> {
        let io = |e| ConvertError::io(path, e);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(io)?;
        let mut content = Vec::new();
        file.read_to_end(&mut content).map_err(io)?;
        let mut good_end = 0;
        if let Some(chunks) = content.strip_prefix(header) {
            good_end = header.len();
            for payload in format.payloads(chunks) {
                if !take(&chunks[payload.clone()]) {
                    break;
                }
                good_end = header.len() + payload.end + format.checksum.raw_len();
            }
        }
        if good_end == 0 {
            // Absent, or made for something else: start over.
            file.set_len(0).map_err(io)?;
            file.seek(SeekFrom::Start(0)).map_err(io)?;
            file.write_all(header).map_err(io)?;
            file.sync_data().map_err(io)?;
            good_end = header.len();
        } else if good_end < content.len() {
            // A chunk cut short by a kill: drop it.
            file.set_len(good_end as u64).map_err(io)?;
            file.sync_data().map_err(io)?;
        }
        file.seek(SeekFrom::Start(good_end as u64)).map_err(io)?;
        Ok(ChunkLog {
            file,
            path: path.to_path_buf(),
            format,
        })
    }

    /// Appends one chunk whose payload `write` streams out, then its
    /// checksum and length; made durable (fsynced) when `durable`, else
    /// left to the system (a chunk a crash loses or tears is dropped by
    /// the next open, which must then cost only the work it saved).
    pub fn append(
        &mut self,
        durable: bool,
        write: impl FnOnce(&mut HashFile<&File>) -> std::io::Result<()>,
    ) -> Result<(), ConvertError> {
        let io = |e| ConvertError::io(&self.path, e);
        let start = self.file.stream_position().map_err(io)?;
        let mut file = &self.file;
        let mut prefix = [0u8; 12];
        prefix[..4].copy_from_slice(&self.format.magic);
        file.write_all(&prefix).map_err(io)?;
        let mut payload = HashFile::new(file, self.format.checksum);
        write(&mut payload).map_err(io)?;
        let len = payload.bytes_written();
        payload.finish_with_trailer().map_err(io)?;
        self.file
            .write_all_at(&len.to_le_bytes(), start + 4)
            .map_err(io)?;
        if durable {
            self.file.sync_data().map_err(io)?;
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Removes a run's scratch file (a log, a record) once nothing is left
/// to resume from it; one already gone is fine.
pub fn remove_scratch(path: &Path) -> Result<(), ConvertError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(ConvertError::io(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORMAT: ChunkFormat = ChunkFormat {
        magic: *b"TEST",
        checksum: HashKind::Sha1,
    };

    fn payloads(path: &Path, header: &[u8]) -> Vec<Vec<u8>> {
        let mut seen = Vec::new();
        ChunkLog::open(path, header, FORMAT, |p| {
            seen.push(p.to_vec());
            true
        })
        .unwrap();
        seen
    }

    #[test]
    fn chunks_read_back_a_torn_one_is_cut_off_and_another_header_starts_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = ChunkLog::open(&path, b"header\n", FORMAT, |_| true).unwrap();
        for chunk in [&b"one"[..], b"", b"three"] {
            log.append(false, |out| out.write_all(chunk)).unwrap();
        }
        drop(log);
        let whole = std::fs::metadata(&path).unwrap().len();
        assert_eq!(payloads(&path, b"header\n"), [&b"one"[..], b"", b"three"]);
        // A chunk whose length was never written, then a torn one.
        let mut log = ChunkLog::open(&path, b"header\n", FORMAT, |_| true).unwrap();
        log.append(false, |out| out.write_all(b"four")).unwrap();
        drop(log);
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all_at(&[0; 8], whole + 4).unwrap();
        assert_eq!(payloads(&path, b"header\n").len(), 3);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), whole, "cut off");
        // The caller may stop taking: the rest is cut off too.
        ChunkLog::open(&path, b"header\n", FORMAT, |p| p != b"").unwrap();
        assert_eq!(payloads(&path, b"header\n"), [b"one"]);
        assert!(payloads(&path, b"other\n").is_empty());
        assert_eq!(std::fs::read(&path).unwrap(), b"other\n");
    }
}
