//! A `Write` wrapper that hashes and counts everything written through it
//! (git's `struct hashfile` in `csum-file.c`: `hashwrite`,
//! `finalize_hashfile`), for the `.idx` and `.rev` files; the `.pack`
//! stream has its own, off-thread (`pack_stream.rs`).

use std::io::{self, Write};

use crate::hash::{HashKind, ObjectId};
use crate::pack::hashfile::FileHasher;

/// Hashes and counts the bytes that reach `inner`.
pub struct HashingWriter<W: Write> {
    inner: W,
    hasher: FileHasher,
    bytes: u64,
}

impl<W: Write> HashingWriter<W> {
    /// Starts with an empty hash of kind `hash` and a byte count of zero.
    pub fn new(inner: W, hash: HashKind) -> Self {
        HashingWriter {
            inner,
            hasher: FileHasher::new(hash),
            bytes: 0,
        }
    }

    /// Bytes accepted so far (the offset the next byte will have).
    pub fn bytes_written(&self) -> u64 {
        self.bytes
    }

    /// Writes the checksum of everything written so far, unhashed, as the
    /// file's trailer, flushes, and returns the inner writer and the checksum
    /// (git's `finalize_hashfile`).
    pub fn finish_with_trailer(mut self) -> io::Result<(W, ObjectId)> {
        let checksum = self.hasher.finalize();
        self.inner.write_all(checksum.as_bytes())?;
        self.inner.flush()?;
        Ok((self.inner, checksum))
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        // Only what the inner writer accepted is part of the file.
        let written = &buf[..n];
        self.hasher.update(written);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_counts_and_appends_trailer() {
        let mut w = HashingWriter::new(Vec::new(), HashKind::Sha256);
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

        let w = HashingWriter::new(Vec::new(), HashKind::Sha1);
        let (out, sum) = w.finish_with_trailer().unwrap();
        assert_eq!(sum.to_hex(), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(out.len(), 20);
    }
}
