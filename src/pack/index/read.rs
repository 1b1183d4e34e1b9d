//! Pack index files (`.idx`), versions 1 and 2, memory-mapped.
//!
//! Mirrors gitformat-pack "Version 1 pack-*.idx files" and "Version 2
//! pack-*.idx files", and the checks of git's `load_idx()` (packfile.c):
//! magic and version, fanout monotonic, file size within the bounds the
//! object count allows. On top of git we check once, at open, that names are
//! sorted within their fanout buckets and that every 64-bit offset slot
//! exists, so lookups and `offset_at` need no error path later.

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::hash::{HashKind, ObjectId};
use crate::pack::error::IdxError;
use crate::pack::hashfile::trailer_matches;

/// `"\377tOc"`, the v2 magic (a v1 fanout never starts like this).
const V2_MAGIC: [u8; 4] = [0xff, b't', b'O', b'c'];
const FANOUT_LEN: usize = 256 * 4;

/// Where the tables of one index version live in the file.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// v1: fanout at 0, then `(u32 offset, name)` records.
    V1,
    /// v2: names, crc32, 32-bit offsets, 64-bit offsets, each a table.
    V2 {
        names: usize,
        crcs: usize,
        offsets: usize,
        large_offsets: usize,
    },
}

/// A memory-mapped `.idx` file for a given hash kind.
pub struct IndexFile {
    path: PathBuf,
    hash: HashKind,
    map: Mmap,
    layout: Layout,
    fanout: usize,
    count: u32,
}

impl IndexFile {
    /// Opens and validates an index (git's `load_idx()`).
    pub fn open(path: &Path, hash: HashKind) -> Result<Self, IdxError> {
        let io = |source| IdxError::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let raw = hash.raw_len() as u64;
        if len < FANOUT_LEN as u64 + 2 * raw {
            return Err(IdxError::TooSmall {
                path: path.to_owned(),
                len,
            });
        }
        // SAFETY: the source repository is only read; pack and index files
        // are immutable once git has renamed them into place (git itself
        // mmaps them the same way). A concurrent writer truncating the file
        // is outside what any git reader protects against.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let mut idx = IndexFile {
            path: path.to_owned(),
            hash,
            map,
            layout: Layout::V1,
            fanout: 0,
            count: 0,
        };
        if idx.map[..4] == V2_MAGIC {
            let version = idx.be32(4);
            if version != 2 {
                return Err(IdxError::UnsupportedVersion {
                    path: path.to_owned(),
                    version,
                });
            }
            idx.fanout = 8;
        }
        idx.count = idx.check_fanout()?;
        idx.layout = idx.check_size(len)?;
        idx.check_names_and_offsets()?;
        Ok(idx)
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

    /// The index version, 1 or 2.
    pub fn version(&self) -> u32 {
        match self.layout {
            Layout::V1 => 1,
            Layout::V2 { .. } => 2,
        }
    }

    /// The `i`-th name in sorted order. Panics if `i >= num_objects()`.
    pub fn oid_at(&self, i: u32) -> ObjectId {
        ObjectId::from_raw(self.hash, self.name_bytes(i)).expect("name slices are raw_len long")
    }

    /// The pack offset of the `i`-th object, through the v2 64-bit table
    /// when the MSB is set. Panics if `i >= num_objects()`.
    pub fn offset_at(&self, i: u32) -> u64 {
        self.check_index(i);
        let i = i as usize;
        match self.layout {
            Layout::V1 => u64::from(self.be32(FANOUT_LEN + i * (4 + self.hash.raw_len()))),
            Layout::V2 {
                offsets,
                large_offsets,
                ..
            } => {
                let small = self.be32(offsets + i * 4);
                if small & 0x8000_0000 == 0 {
                    u64::from(small)
                } else {
                    // Slot validity was checked in `open`.
                    let at = large_offsets + (small & 0x7fff_ffff) as usize * 8;
                    u64::from_be_bytes(self.map[at..at + 8].try_into().expect("8 bytes"))
                }
            }
        }
    }

    /// The CRC32 of the packed entry (v2 only). Panics if `i >= num_objects()`.
    pub fn crc32_at(&self, i: u32) -> Option<u32> {
        self.check_index(i);
        match self.layout {
            Layout::V1 => None,
            Layout::V2 { crcs, .. } => Some(self.be32(crcs + i as usize * 4)),
        }
    }

    /// Finds `id` through the fanout table and a binary search of its bucket.
    pub fn lookup(&self, id: &ObjectId) -> Option<u32> {
        if id.kind() != self.hash {
            return None;
        }
        let want = id.as_bytes();
        let (mut lo, mut hi) = self.bucket(want[0]);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.name_bytes(mid).cmp(want) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The copy of the `.pack` trailer stored in the index.
    pub fn pack_checksum(&self) -> &[u8] {
        let raw = self.hash.raw_len();
        let end = self.map.len() - raw;
        &self.map[end - raw..end]
    }

    /// Recomputes the index's own trailing checksum.
    pub fn verify_checksum(&self) -> Result<(), IdxError> {
        if trailer_matches(self.hash, &self.map) {
            Ok(())
        } else {
            Err(IdxError::ChecksumMismatch {
                path: self.path.clone(),
            })
        }
    }

    fn check_index(&self, i: u32) {
        assert!(
            i < self.count,
            "index entry {i} out of range ({})",
            self.count
        );
    }

    fn be32(&self, at: usize) -> u32 {
        u32::from_be_bytes(self.map[at..at + 4].try_into().expect("4 bytes"))
    }

    fn fanout_at(&self, byte: usize) -> u32 {
        self.be32(self.fanout + byte * 4)
    }

    /// The half-open range of sorted positions whose names start with `first`.
    fn bucket(&self, first: u8) -> (u32, u32) {
        let lo = match first {
            0 => 0,
            b => self.fanout_at(b as usize - 1),
        };
        (lo, self.fanout_at(first as usize))
    }

    fn name_bytes(&self, i: u32) -> &[u8] {
        self.check_index(i);
        let (raw, i) = (self.hash.raw_len(), i as usize);
        let at = match self.layout {
            Layout::V1 => FANOUT_LEN + i * (4 + raw) + 4,
            Layout::V2 { names, .. } => names + i * raw,
        };
        &self.map[at..at + raw]
    }

    fn check_fanout(&self) -> Result<u32, IdxError> {
        let mut previous = 0;
        for index in 0..256 {
            let n = self.fanout_at(index);
            if n < previous {
                return Err(IdxError::NonMonotonicFanout {
                    path: self.path.clone(),
                    index,
                });
            }
            previous = n;
        }
        Ok(previous)
    }

    /// git's size bounds: v1 exact; v2 between "no 64-bit offsets" and "all
    /// but one offset 64-bit".
    fn check_size(&self, len: u64) -> Result<Layout, IdxError> {
        let (n, raw) = (u64::from(self.count), self.hash.raw_len() as u64);
        let trailers = 2 * raw;
        let (min, max, layout) = if self.fanout == 0 {
            let size = FANOUT_LEN as u64 + n * (4 + raw) + trailers;
            (size, size, Layout::V1)
        } else {
            let min = 8 + FANOUT_LEN as u64 + n * (raw + 8) + trailers;
            let max = min + n.saturating_sub(1) * 8;
            // Offsets fit in usize: they are below `len`, which was mapped.
            let names = 8 + FANOUT_LEN;
            let crcs = names + (n * raw) as usize;
            let offsets = crcs + self.count as usize * 4;
            let large_offsets = offsets + self.count as usize * 4;
            let layout = Layout::V2 {
                names,
                crcs,
                offsets,
                large_offsets,
            };
            (min, max, layout)
        };
        if len < min || len > max {
            return Err(IdxError::WrongSize {
                path: self.path.clone(),
                len,
                count: self.count,
                min,
                max,
            });
        }
        Ok(layout)
    }

    /// Names strictly ascending and each in its fanout bucket; 64-bit
    /// offset slots inside the table.
    fn check_names_and_offsets(&self) -> Result<(), IdxError> {
        let unsorted = |index| IdxError::Unsorted {
            path: self.path.clone(),
            index,
        };
        let mut previous: Option<&[u8]> = None;
        let mut bucket = 0usize;
        for i in 0..self.count {
            let name = self.name_bytes(i);
            if previous.is_some_and(|p| p >= name) {
                return Err(unsorted(i));
            }
            while self.fanout_at(bucket) <= i {
                bucket += 1; // terminates: fanout[255] == count > i
            }
            if usize::from(name[0]) != bucket {
                return Err(unsorted(i));
            }
            previous = Some(name);
        }
        if let Layout::V2 {
            offsets,
            large_offsets,
            ..
        } = self.layout
        {
            let table_end = self.map.len() - 2 * self.hash.raw_len();
            let slots = ((table_end - large_offsets) / 8) as u64;
            for i in 0..self.count {
                let small = self.be32(offsets + i as usize * 4);
                let slot = small & 0x7fff_ffff;
                if small & 0x8000_0000 != 0 && u64::from(slot) >= slots {
                    return Err(IdxError::BadLargeOffset {
                        path: self.path.clone(),
                        index: i,
                        slot,
                        slots,
                    });
                }
            }
        }
        Ok(())
    }
}

impl std::fmt::Debug for IndexFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexFile")
            .field("path", &self.path)
            .field("hash", &self.hash)
            .field("version", &self.version())
            .field("count", &self.count)
            .finish()
    }
}
