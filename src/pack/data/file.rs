//! The `.pack` file, memory-mapped (gitformat-pack "pack-*.pack files have
//! the following format"; git's `unpack_entry()` pieces in packfile.c).

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::entry::{Entry, HeaderFault, parse_entry};
use crate::hash::HashKind;
use crate::pack::error::PackError;
use crate::pack::hashfile::trailer_matches;
use crate::zlib::{
    ZlibError, expect_end, inflate_discard, inflate_until, inflate_whole, with_inflater,
};

/// `"PACK"`, version, object count.
pub(crate) const PACK_HEADER_LEN: u64 = 12;

/// A memory-mapped pack data file.
pub struct PackFile {
    path: PathBuf,
    hash: HashKind,
    map: Mmap,
    count: u32,
    version: u32,
}

impl PackFile {
    /// Opens a pack and checks its header: magic `PACK`, version 2 or 3,
    /// and an object count the file size can hold.
    pub fn open(path: &Path, hash: HashKind) -> Result<Self, PackError> {
        let io = |source| PackError::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len < PACK_HEADER_LEN + hash.raw_len() as u64 {
            return Err(PackError::Truncated {
                path: path.to_owned(),
                offset: len,
            });
        }
        // SAFETY: see `IndexFile::open`; packs are immutable once published
        // and the source repository is only read.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        if &map[..4] != b"PACK" {
            return Err(PackError::BadMagic {
                path: path.to_owned(),
            });
        }
        let be32 = |at: usize| u32::from_be_bytes(map[at..at + 4].try_into().expect("4 bytes"));
        let (version, count) = (be32(4), be32(8));
        if version != 2 && version != 3 {
            return Err(PackError::UnsupportedVersion {
                path: path.to_owned(),
                version,
            });
        }
        // Every entry takes at least one byte (really a header byte plus a zlib
        // stream), so a count above the room left is a forged header.
        let room = len - PACK_HEADER_LEN - hash.raw_len() as u64;
        if u64::from(count) > room {
            return Err(PackError::ImplausibleCount {
                path: path.to_owned(),
                count,
                len,
            });
        }
        Ok(PackFile {
            path: path.to_owned(),
            hash,
            map,
            count,
            version,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn hash_kind(&self) -> HashKind {
        self.hash
    }

    pub fn num_objects(&self) -> u32 {
        self.count
    }

    pub fn version(&self) -> u32 {
        self.version
    }

    /// The file size in bytes.
    pub fn len(&self) -> u64 {
        self.map.len() as u64
    }

    /// Never true for an opened pack (it has at least a header and trailer).
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The trailing checksum, which also names the pack.
    pub fn checksum(&self) -> &[u8] {
        &self.map[self.data_end()..]
    }

    /// End of the entries: where the trailer starts.
    pub fn data_end(&self) -> usize {
        self.map.len() - self.hash.raw_len()
    }

    /// Asks the kernel to read the whole file ahead, for a caller about to
    /// read all of it in an order of its own (the fold of segments).
    pub fn will_need(&self) {
        // Advice only: a kernel that ignores it just reads on demand.
        let _ = self.map.advise(memmap2::Advice::WillNeed);
    }

    /// Parses the header of the entry starting at `offset`.
    pub fn entry_at(&self, offset: u64) -> Result<Entry, PackError> {
        let start = usize::try_from(offset)
            .ok()
            .filter(|&s| offset >= PACK_HEADER_LEN && s < self.data_end())
            .ok_or_else(|| PackError::OffsetOutOfRange {
                path: self.path.clone(),
                offset,
            })?;
        parse_entry(
            &self.map[start..self.data_end()],
            offset,
            self.hash,
            PACK_HEADER_LEN,
        )
        .map_err(|fault| match fault {
            HeaderFault::Truncated => PackError::Truncated {
                path: self.path.clone(),
                offset,
            },
            HeaderFault::BadType(code) => PackError::BadEntryType {
                path: self.path.clone(),
                offset,
                code,
            },
            HeaderFault::Overflow => PackError::BadEntryHeader {
                path: self.path.clone(),
                offset,
            },
            HeaderFault::BaseOutOfRange(base_offset) => PackError::BaseOutOfRange {
                path: self.path.clone(),
                offset,
                base_offset,
            },
        })
    }

    /// Inflates the entry's zlib stream into `out` (replacing its content):
    /// exactly `entry.size` bytes or an error; `out` never grows past that.
    pub fn inflate(&self, entry: &Entry, out: &mut Vec<u8>) -> Result<(), PackError> {
        let limit = usize::try_from(entry.size).map_err(|_| PackError::TooLarge {
            path: self.path.clone(),
            offset: entry.offset,
            size: entry.size,
        })?;
        let input = self.stream(entry)?;
        if inflate_whole(input, limit, out) {
            return Ok(());
        }
        out.clear();
        let result = with_inflater(|z| {
            inflate_until(z, input, out, limit).and_then(|ended| {
                if ended {
                    Ok(())
                } else {
                    expect_end(z, input, out.len() as u64)
                }
            })
        });
        result.map_err(|e| self.zlib_error(entry, e))?;
        if out.len() != limit {
            return Err(self.size_mismatch(entry, out.len() as u64));
        }
        Ok(())
    }

    /// Where the entry's zlib stream lies in the file, found by inflating it
    /// (and checking it yields `entry.size` bytes).
    pub fn compressed_range(&self, entry: &Entry) -> Result<Range<u64>, PackError> {
        let input = self.stream(entry)?;
        let (produced, consumed) = with_inflater(|z| {
            inflate_discard(z, input, entry.size).map(|produced| (produced, z.total_in()))
        })
        .map_err(|e| self.zlib_error(entry, e))?;
        if produced != entry.size {
            return Err(self.size_mismatch(entry, produced));
        }
        Ok(entry.data_offset..entry.data_offset + consumed)
    }

    /// Raw bytes of the file, e.g. a range from [`PackFile::compressed_range`].
    pub fn raw(&self, range: Range<u64>) -> Result<&[u8], PackError> {
        let out_of_bounds = || PackError::RangeOutOfBounds {
            path: self.path.clone(),
            start: range.start,
            end: range.end,
        };
        let start = usize::try_from(range.start).map_err(|_| out_of_bounds())?;
        let end = usize::try_from(range.end).map_err(|_| out_of_bounds())?;
        self.map.get(start..end).ok_or_else(out_of_bounds)
    }

    /// Recomputes the trailing checksum over the whole file (fast SHA-1 for
    /// SHA-1 packs).
    pub fn verify_checksum(&self) -> Result<(), PackError> {
        if trailer_matches(self.hash, &self.map) {
            Ok(())
        } else {
            Err(PackError::ChecksumMismatch {
                path: self.path.clone(),
            })
        }
    }

    /// The bytes from the entry's zlib stream to the end of the entries.
    fn stream(&self, entry: &Entry) -> Result<&[u8], PackError> {
        usize::try_from(entry.data_offset)
            .ok()
            .and_then(|start| self.map.get(start..self.data_end()))
            .ok_or_else(|| PackError::Truncated {
                path: self.path.clone(),
                offset: entry.offset,
            })
    }

    fn zlib_error(&self, entry: &Entry, e: ZlibError) -> PackError {
        match e {
            ZlibError::Corrupt(reason) => PackError::Zlib {
                path: self.path.clone(),
                offset: entry.offset,
                reason,
            },
            ZlibError::Truncated => PackError::Truncated {
                path: self.path.clone(),
                offset: entry.offset,
            },
            ZlibError::TooLong { at_least } => self.size_mismatch(entry, at_least),
        }
    }

    fn size_mismatch(&self, entry: &Entry, actual: u64) -> PackError {
        PackError::SizeMismatch {
            path: self.path.clone(),
            offset: entry.offset,
            expected: entry.size,
            actual,
        }
    }
}

impl std::fmt::Debug for PackFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackFile")
            .field("path", &self.path)
            .field("hash", &self.hash)
            .field("version", &self.version)
            .field("count", &self.count)
            .finish()
    }
}
