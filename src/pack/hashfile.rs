//! The checksummed file (git's `csum-file.c`): a file whose last bytes are
//! the hash of every byte before it, SHA-1 or SHA-256 as the caller says.
//! Packs, pack indexes, reverse indexes, bitmaps and commit-graphs end
//! with one; the chunk logs (the scan's checkpoint, the map pass's reach
//! records) end each chunk with one. The hash is
//! the fast (non collision detecting) implementation, as git's is: it only
//! guards against corruption.
//!
//! [`HashFile`] is the writer (git's `hashfile`, `hashwrite`,
//! `finalize_hashfile`): bytes are gathered in a buffer and hashed and
//! written a block at a time, so that the hash sees blocks rather than the
//! fields of a format. [`FileHasher`] is the running checksum underneath,
//! for the writers that lay their bytes out themselves (the fold hashes
//! its output from its inputs while other threads copy them). A trailer is
//! checked with [`trailer_matches`].
//!
//! These hashes run over bytes that are not in this core's caches: a
//! source pack read through its mmap, or an output block another thread
//! just filled. The SHA compress loop is serial and cannot run far enough
//! ahead of its loads to hide the latency, so fed a large slice it hashes
//! ~30% slower than over cached bytes (SHA-256 ~1.25 against ~1.7 GB/s,
//! SHA-1 ~1.2 against ~1.8 GB/s on the benchmark machine). Requesting the
//! next step's cache lines before hashing the current one closes the gap.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use sha2::Digest as _;

use crate::durable::{self, PathError};
use crate::hash::{HashKind, ObjectId};

/// Bytes hashed between prefetches; the lines of the next step are
/// requested before this one is hashed. 2 KiB measured best (4 and 8 KiB
/// slightly slower: the lines arrive too early and compete with the rest).
const STEP: usize = 2048;

/// Bytes [`HashFile`] gathers before hashing and writing them. Writes at
/// least this long, arriving when nothing is gathered, go straight
/// through: the pack stream hands over blocks of this size.
pub(crate) const BUFFER: usize = 64 << 10;

/// The running checksum of a file being read or written.
pub(crate) enum FileHasher {
    Sha1(sha1::Sha1),
    Sha256(sha2::Sha256),
}

impl FileHasher {
    pub(crate) fn new(hash: HashKind) -> Self {
        match hash {
            HashKind::Sha1 => FileHasher::Sha1(sha1::Sha1::new()),
            HashKind::Sha256 => FileHasher::Sha256(sha2::Sha256::new()),
        }
    }

    /// Hashes `bytes`, prefetching each step's successor first.
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        let mut steps = bytes.chunks(STEP).peekable();
        while let Some(step) = steps.next() {
            if let Some(next) = steps.peek() {
                prefetch(next);
            }
            self.update_cached(step);
        }
    }

    fn update_cached(&mut self, bytes: &[u8]) {
        match self {
            FileHasher::Sha1(h) => h.update(bytes),
            FileHasher::Sha256(h) => h.update(bytes),
        }
    }

    pub(crate) fn finalize(self) -> ObjectId {
        match self {
            FileHasher::Sha1(h) => ObjectId::Sha1(h.finalize().into()),
            FileHasher::Sha256(h) => ObjectId::Sha256(h.finalize().into()),
        }
    }
}

/// Asks for every cache line of `bytes` to be loaded, without waiting.
#[inline]
fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for line in bytes.chunks(64) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch is a
        // hint that never faults, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

/// A file being written with its checksum: everything written through it
/// is hashed and counted on its way to `inner`, and
/// [`HashFile::finish_with_trailer`] appends the checksum. After a failed
/// write the file is incomplete: the caller drops it.
pub(crate) struct HashFile<W: Write> {
    inner: W,
    hasher: FileHasher,
    /// Accepted, not yet hashed nor written; allocated on first use (a
    /// writer that hands over whole blocks never needs it).
    buffer: Vec<u8>,
    bytes: u64,
}

impl<W: Write> HashFile<W> {
    /// Starts with an empty hash of kind `hash` and a byte count of zero.
    pub(crate) fn new(inner: W, hash: HashKind) -> Self {
        HashFile {
            inner,
            hasher: FileHasher::new(hash),
            buffer: Vec::new(),
            bytes: 0,
        }
    }

    /// Bytes accepted so far (the offset the next byte will have).
    pub(crate) fn bytes_written(&self) -> u64 {
        self.bytes
    }

    /// The writer underneath, which has every byte accepted but those
    /// still gathered (fewer than [`BUFFER`]).
    pub(crate) fn get_ref(&self) -> &W {
        &self.inner
    }

    /// Writes what is gathered, then the checksum of everything written
    /// so far, unhashed, as the file's trailer; flushes, and returns the
    /// inner writer and the checksum (git's `finalize_hashfile`).
    pub(crate) fn finish_with_trailer(mut self) -> io::Result<(W, ObjectId)> {
        self.write_gathered()?;
        let checksum = self.hasher.finalize();
        self.inner.write_all(checksum.as_bytes())?;
        self.inner.flush()?;
        Ok((self.inner, checksum))
    }

    /// Hashes and writes `bytes` (git's `hashflush`).
    fn hash_and_write(hasher: &mut FileHasher, inner: &mut W, bytes: &[u8]) -> io::Result<()> {
        hasher.update(bytes);
        inner.write_all(bytes)
    }

    fn write_gathered(&mut self) -> io::Result<()> {
        if !self.buffer.is_empty() {
            Self::hash_and_write(&mut self.hasher, &mut self.inner, &self.buffer)?;
            self.buffer.clear();
        }
        Ok(())
    }
}

impl<W: Write> Write for HashFile<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.buffer.is_empty() && buf.len() >= BUFFER {
            Self::hash_and_write(&mut self.hasher, &mut self.inner, buf)?;
            self.bytes += buf.len() as u64;
            return Ok(buf.len());
        }
        if self.buffer.capacity() == 0 {
            self.buffer.reserve_exact(BUFFER);
        }
        let take = (BUFFER - self.buffer.len()).min(buf.len());
        self.buffer.extend_from_slice(&buf[..take]);
        if self.buffer.len() == BUFFER {
            self.write_gathered()?;
        }
        self.bytes += take as u64;
        Ok(take)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_gathered()?;
        self.inner.flush()
    }
}

/// Writes `path` durably (`durable.rs`): the bytes `body` writes, then
/// their checksum of kind `hash`. Returns the checksum and the file's
/// length, trailer included.
pub(crate) fn write_checksummed_file(
    path: &Path,
    hash: HashKind,
    body: impl FnOnce(&mut HashFile<&mut File>) -> io::Result<()>,
) -> Result<(ObjectId, u64), PathError> {
    let mut written = None;
    durable::write_file_with(path, |file| {
        let mut out = HashFile::new(file, hash);
        body(&mut out)?;
        let len = out.bytes_written() + hash.raw_len() as u64;
        let (_, checksum) = out.finish_with_trailer()?;
        written = Some((checksum, len));
        Ok(())
    })?;
    Ok(written.expect("written above"))
}

/// The checksum of `data` under `hash`.
fn checksum_of(hash: HashKind, data: &[u8]) -> ObjectId {
    let mut hasher = FileHasher::new(hash);
    hasher.update(data);
    hasher.finalize()
}

/// Whether the last `hash.raw_len()` bytes of `file` are the checksum of
/// the rest (git's `hashfile_checksum_valid`).
pub(crate) fn trailer_matches(hash: HashKind, file: &[u8]) -> bool {
    let Some(split) = file.len().checked_sub(hash.raw_len()) else {
        return false;
    };
    let (body, trailer) = file.split_at(split);
    checksum_of(hash, body).as_bytes() == trailer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize) -> Vec<u8> {
        (0..len as u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect()
    }

    fn sha1_of(d: &[u8]) -> ObjectId {
        use sha1::Digest as _;
        ObjectId::Sha1(sha1::Sha1::digest(d).into())
    }

    fn sha256_of(d: &[u8]) -> ObjectId {
        ObjectId::Sha256(sha2::Sha256::digest(d).into())
    }

    #[test]
    fn stepped_hashing_equals_one_pass_at_every_split() {
        let data = data(3 * STEP + 77);
        for len in [0, 1, 63, 64, STEP - 1, STEP, STEP + 1, data.len()] {
            let d = &data[..len];
            assert_eq!(checksum_of(HashKind::Sha1, d), sha1_of(d), "len {len}");
            assert_eq!(checksum_of(HashKind::Sha256, d), sha256_of(d), "len {len}");
        }
        // Fed in uneven pieces, as the pack stream's blocks arrive.
        let mut hasher = FileHasher::new(HashKind::Sha256);
        for piece in data.chunks(STEP + 13) {
            hasher.update(piece);
        }
        assert_eq!(hasher.finalize(), sha256_of(&data));
    }

    #[test]
    fn hashes_counts_and_appends_trailer() {
        let mut w = HashFile::new(Vec::new(), HashKind::Sha256);
        w.write_all(b"abc").unwrap();
        assert_eq!(w.bytes_written(), 3);
        let (out, sum) = w.finish_with_trailer().unwrap();
        let expected = ObjectId::from_hex(
            HashKind::Sha256,
            b"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        )
        .unwrap();
        assert_eq!(sum, expected);
        assert_eq!(&out[..3], b"abc");
        assert_eq!(&out[3..], expected.as_bytes());

        let w = HashFile::new(Vec::new(), HashKind::Sha1);
        let (out, sum) = w.finish_with_trailer().unwrap();
        assert_eq!(sum.to_hex(), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(out.len(), 20);
    }

    #[test]
    fn gathered_and_direct_writes_give_the_same_file() {
        // Small fields, writes across the buffer's end, whole blocks that
        // go straight through, and a block arriving while bytes are
        // gathered: the file is the bytes in order, then their checksum.
        let data = data(5 * BUFFER + 999);
        for hash in [HashKind::Sha1, HashKind::Sha256] {
            let mut w = HashFile::new(Vec::new(), hash);
            let mut rest = &data[..];
            for size in [4, BUFFER, 1, BUFFER - 1, 2 * BUFFER + 5, 17]
                .iter()
                .cycle()
            {
                if rest.is_empty() {
                    break;
                }
                let take = (*size).min(rest.len());
                w.write_all(&rest[..take]).unwrap();
                rest = &rest[take..];
                assert_eq!(w.bytes_written(), (data.len() - rest.len()) as u64);
            }
            let (out, sum) = w.finish_with_trailer().unwrap();
            let expected = match hash {
                HashKind::Sha1 => sha1_of(&data),
                HashKind::Sha256 => sha256_of(&data),
            };
            assert_eq!(sum, expected);
            assert!(out[..data.len()] == data[..], "the bytes differ");
            assert_eq!(&out[data.len()..], expected.as_bytes());
            assert!(trailer_matches(hash, &out));
            assert!(!trailer_matches(hash, &out[1..]));
        }
    }

    #[test]
    fn a_durable_checksummed_file_reports_its_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        let (sum, len) = write_checksummed_file(&path, HashKind::Sha1, |out| {
            out.write_all(b"abc")?;
            out.write_all(b"def")
        })
        .unwrap();
        let on_disk = std::fs::read(&path).unwrap();
        assert_eq!(len, on_disk.len() as u64);
        assert_eq!(&on_disk[..6], b"abcdef");
        assert_eq!(&on_disk[6..], sum.as_bytes());
        assert_eq!(sum, sha1_of(b"abcdef"));
    }
}
