//! The `.pack` file being written, with its checksum and its writes on a
//! thread of their own.
//!
//! The pack writer appends in order on one thread, the one sequential part
//! of a conversion. Hashing its output there (SHA-256 at ~1.2 GB/s) took
//! more of that thread than anything else, and the `write` system calls
//! (copying into the page cache, ext4's block reservation) most of the
//! rest. Here the appender only copies bytes into 64 KiB blocks (memcpy,
//! ~10x faster than the hash) and keeps the offset and the entry CRC32; a
//! helper thread hashes each block, writes it and starts its writeback.
//! The file and its trailer are the same as an inline hash-and-write of
//! the same bytes would give.
//!
//! A failed write ends the helper thread; the appender sees it on its next
//! block (the channel is closed) and returns that error.

use std::fs::File;
use std::io::{self, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use crate::hash::{HashKind, ObjectId};
use crate::pack::hashfile::{self, HashFile};

/// Bytes per block handed to the helper thread. Every block that was ever
/// in flight stays allocated (it comes back as a spare) for as long as the
/// pack is open, so this is memory each open pack holds whatever the
/// repository's size: 64 KiB instead of 256 KiB took 0.7 MiB off a
/// 100k-object run's 36 MiB peak. What a block costs beyond its bytes (a
/// channel hand-off, a `write` call) is small beside hashing 64 KiB.
/// No smaller than what [`HashFile`] gathers, so that each block goes
/// straight through it to the file instead of being copied once more.
const BLOCK: usize = 64 << 10;
const _: () = assert!(BLOCK >= hashfile::BUFFER);
/// Blocks in flight: what the appender may run ahead of the disk writes.
const IN_FLIGHT: usize = 8;
/// Every this many bytes, the file's new pages are handed to the kernel for
/// writeback (Linux `sync_file_range`, which does not wait), so the `fsync`
/// when the pack is finished finds little left to write: on a 1.8 GB pack
/// it otherwise stalled the run for over a second, with the disk idle while
/// the pack was being written.
///
/// The pages stay in the page cache, clean once written back: every pack
/// written through here is a segment that the finish step reads whole
/// (`fold.rs`). Dropped behind the writes, they had to come back from the
/// disk through page faults, a third of the fold on a 1 GB conversion;
/// kept, the write phase pays for fresh pages instead (about 1 ms of
/// system time a MB on this project's VM, spread over the cores), and the
/// run as a whole is no slower (docs/performance.md). The fold drops its
/// own output behind its writes, and deletes the segments.
const WRITEBACK_STEP: u64 = 32 << 20;

/// What the helper thread hands back: the file, trailer written, and the
/// checksum it holds.
type Written = io::Result<(File, ObjectId)>;

pub struct PackStream {
    staged: Vec<u8>,
    blocks: Option<SyncSender<Vec<u8>>>,
    /// Written blocks come back for reuse.
    spent: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<Written>>,
    bytes: u64,
    crc: crc32fast::Hasher,
}

impl PackStream {
    /// Starts writing `file` (empty, positioned at its start) with a
    /// checksum of kind `hash`.
    pub fn new(file: File, hash: HashKind) -> Self {
        let (blocks, todo) = sync_channel::<Vec<u8>>(IN_FLIGHT);
        let (give_back, spent) = sync_channel::<Vec<u8>>(IN_FLIGHT + 2);
        let thread = std::thread::Builder::new()
            .name("pack-write".into())
            .spawn(move || write_blocks(file, hash, todo, give_back))
            .expect("spawn the pack writing thread");
        PackStream {
            staged: Vec::with_capacity(BLOCK),
            blocks: Some(blocks),
            spent,
            thread: Some(thread),
            bytes: 0,
            crc: crc32fast::Hasher::new(),
        }
    }

    /// Bytes accepted so far (the offset the next byte will have).
    pub fn bytes_written(&self) -> u64 {
        self.bytes
    }

    /// Restarts the CRC32 (git's `crc32_begin`); call at the start of an entry.
    pub fn begin_crc(&mut self) {
        self.crc = crc32fast::Hasher::new();
    }

    /// The CRC32 of the bytes written since [`PackStream::begin_crc`].
    pub fn crc(&self) -> u32 {
        self.crc.clone().finalize()
    }

    /// Writes everything still staged, then the checksum of all of it as the
    /// trailer; returns the file (not yet synced) and the checksum.
    pub fn finish_with_trailer(mut self) -> io::Result<(File, ObjectId)> {
        if self.blocks.is_none() {
            return Err(failed_earlier());
        }
        if !self.staged.is_empty() {
            self.ship()?;
        }
        drop(self.blocks.take());
        self.join()
    }

    fn ship(&mut self) -> io::Result<()> {
        let next = self
            .spent
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BLOCK));
        let block = std::mem::replace(&mut self.staged, next);
        let sent = self.blocks.as_ref().expect("not finished").send(block);
        if sent.is_err() {
            // The helper stopped: a write failed. Its error is the answer.
            drop(self.blocks.take());
            return match self.join() {
                Err(e) => Err(e),
                Ok(_) => unreachable!("the helper only stops early on an error"),
            };
        }
        Ok(())
    }

    fn join(&mut self) -> Written {
        self.thread
            .take()
            .expect("joined once")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}

impl PackStream {
    /// Stages what fits of `buf` in the current block, shipping it when
    /// full; the CRC32 is the caller's business.
    fn stage(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.blocks.is_none() {
            return Err(failed_earlier());
        }
        let take = (BLOCK - self.staged.len()).min(buf.len());
        self.staged.extend_from_slice(&buf[..take]);
        if self.staged.len() == BLOCK {
            self.ship()?;
        }
        self.bytes += take as u64;
        Ok(take)
    }
}

impl Write for PackStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let take = self.stage(buf)?;
        self.crc.update(&buf[..take]);
        Ok(take)
    }

    /// Blocks reach the file in the background; [`PackStream::finish_with_trailer`]
    /// is where everything is known to be written.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for PackStream {
    fn drop(&mut self) {
        // An abandoned pack: let the thread see the end of its input.
        drop(self.blocks.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What a write or finish after a failed write gets (the failure itself
/// was returned to the write that met it).
fn failed_earlier() -> io::Error {
    io::Error::other("the pack stream failed earlier")
}

/// The helper thread: hash, write and start writeback of each block in
/// order, then write the trailer.
fn write_blocks(
    file: File,
    hash: HashKind,
    todo: Receiver<Vec<u8>>,
    give_back: SyncSender<Vec<u8>>,
) -> Written {
    // Whole blocks go straight through it to the file: only the last,
    // shorter one is gathered until the trailer.
    let mut out = HashFile::new(file, hash);
    // Writeback started up to `writeback_from`.
    let mut writeback_from = 0u64;
    for mut block in todo {
        out.write_all(&block)?;
        if out.bytes_written() >= writeback_from + WRITEBACK_STEP {
            start_writeback(out.get_ref(), writeback_from, 0);
            writeback_from = out.bytes_written();
        }
        block.clear();
        // Full when the appender stopped taking blocks back: drop it.
        let _ = give_back.try_send(block);
    }
    out.finish_with_trailer()
}

/// Starts writeback of the `len` bytes (0: all) that reached `file` from
/// `from` on. Advisory: errors surface at the final `fsync`.
pub(crate) fn start_writeback(file: &File, from: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd as _;
        // SAFETY: a plain syscall on a file descriptor we own; no memory is
        // passed.
        unsafe {
            libc::sync_file_range(
                file.as_raw_fd(),
                from as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, from, len);
}

/// Drops the bytes `from..to` of `file` from the page cache, those whose
/// writeback was started a step before (the fold's output, which this run
/// does not read again: recycling its pages spares the kernel finding
/// fresh ones, see [`WRITEBACK_STEP`]).
pub(crate) fn drop_range(file: &File, from: u64, to: u64) {
    // Not for an empty range: a length of 0 tells the call "to the end".
    if to > from {
        advise_dontneed(file, from, to - from);
    }
}

/// Drops `file`'s pages from the page cache; for a file just synced, which
/// this run does not read again.
pub fn drop_cached(file: &File) {
    advise_dontneed(file, 0, 0);
}

/// `POSIX_FADV_DONTNEED` on `len` bytes from `from` (0: to the end).
/// Advisory: pages it cannot drop stay cached, and a write error stays for
/// the final `fsync` to report.
fn advise_dontneed(file: &File, from: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd as _;
        // SAFETY: a plain syscall on a file descriptor we own; no memory is
        // passed.
        unsafe {
            libc::posix_fadvise(
                file.as_raw_fd(),
                from as libc::off_t,
                len as libc::off_t,
                libc::POSIX_FADV_DONTNEED,
            )
        };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, from, len);
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest as _;
    use std::io::Read as _;

    fn read_back(mut file: File) -> Vec<u8> {
        use std::io::Seek as _;
        file.seek(io::SeekFrom::Start(0)).unwrap();
        let mut out = Vec::new();
        file.read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn writes_the_bytes_then_their_checksum_across_block_boundaries() {
        let data: Vec<u8> = (0..(3 * BLOCK + 12345))
            .map(|i| (i * 7 + i / 251) as u8)
            .collect();
        for hash in [HashKind::Sha256, HashKind::Sha1] {
            let mut stream = PackStream::new(tempfile::tempfile().unwrap(), hash);
            // Uneven pieces, some larger than a block.
            let mut rest = &data[..];
            for size in [1, 1000, BLOCK + 3, 17, 2 * BLOCK].iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let take = (*size).min(rest.len());
                stream.write_all(&rest[..take]).unwrap();
                rest = &rest[take..];
            }
            assert_eq!(stream.bytes_written(), data.len() as u64);
            let (file, checksum) = stream.finish_with_trailer().unwrap();
            let expected = match hash {
                HashKind::Sha256 => ObjectId::Sha256(sha2::Sha256::digest(&data).into()),
                HashKind::Sha1 => ObjectId::Sha1(sha1::Sha1::digest(&data).into()),
            };
            assert_eq!(checksum, expected);
            let on_disk = read_back(file);
            assert_eq!(&on_disk[..data.len()], &data[..]);
            assert_eq!(&on_disk[data.len()..], expected.as_bytes());
        }
    }

    #[test]
    fn a_pack_past_several_writeback_steps_reads_back_whole_from_the_disk() {
        // Past two writeback steps, so writeback of a range starts while
        // later blocks are still being written; then dropped from the
        // cache, as the fold drops its output, so the read comes from disk.
        let len = 2 * WRITEBACK_STEP as usize + 3 * BLOCK + 99;
        let data: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
        let mut stream = PackStream::new(tempfile::tempfile().unwrap(), HashKind::Sha256);
        stream.write_all(&data).unwrap();
        let (file, checksum) = stream.finish_with_trailer().unwrap();
        file.sync_all().unwrap();
        drop_cached(&file);
        let expected = ObjectId::Sha256(sha2::Sha256::digest(&data).into());
        assert_eq!(checksum, expected);
        let on_disk = read_back(file);
        assert!(on_disk[..len] == data[..], "the bytes read back differ");
        assert_eq!(&on_disk[len..], expected.as_bytes());
    }

    #[test]
    fn crc_covers_only_the_current_entry() {
        let mut stream = PackStream::new(tempfile::tempfile().unwrap(), HashKind::Sha256);
        stream.write_all(b"prefix").unwrap();
        stream.begin_crc();
        stream.write_all(b"123456789").unwrap();
        // The CRC-32 check value of "123456789".
        assert_eq!(stream.crc(), 0xcbf4_3926);
    }

    #[test]
    fn a_failed_write_is_reported_to_the_appender() {
        // A file opened read-only: every write of the helper fails.
        let tmp = tempfile::NamedTempFile::new().unwrap();
        let read_only = File::open(tmp.path()).unwrap();
        let mut stream = PackStream::new(read_only, HashKind::Sha256);
        let block = vec![7u8; BLOCK];
        let mut failed = None;
        for _ in 0..(IN_FLIGHT + 4) {
            if let Err(e) = stream.write_all(&block) {
                failed = Some(e);
                break;
            }
        }
        let error = match failed {
            Some(e) => {
                // After that, the stream refuses more instead of panicking.
                let again = stream.write_all(&block).unwrap_err();
                assert_eq!(again.to_string(), failed_earlier().to_string());
                let finished = stream.finish_with_trailer().unwrap_err();
                assert_eq!(finished.to_string(), failed_earlier().to_string());
                e
            }
            None => stream.finish_with_trailer().unwrap_err(),
        };
        assert!(
            error.raw_os_error().is_some(),
            "the write's own error: {error}"
        );
    }

    #[test]
    fn dropping_unfinished_ends_the_thread() {
        let mut stream = PackStream::new(tempfile::tempfile().unwrap(), HashKind::Sha256);
        stream.write_all(&vec![1u8; 5 * BLOCK]).unwrap();
        drop(stream);
    }
}
