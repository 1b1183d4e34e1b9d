//! Trailing checksums of pack and index files (git's `csum-file.c`): the
//! hash of every preceding byte, computed with the fast (non collision
//! detecting) implementation because it only guards against corruption.
//!
//! These hashes run over bytes that are not in this core's caches: a
//! source pack read through its mmap, or an output block another thread
//! just filled. The SHA compress loop is serial and cannot run far enough
//! ahead of its loads to hide the latency, so fed a large slice it hashes
//! ~30% slower than over cached bytes (SHA-256 ~1.25 against ~1.7 GB/s,
//! SHA-1 ~1.2 against ~1.8 GB/s on the benchmark machine). Requesting the
//! next step's cache lines before hashing the current one closes the gap.

use sha2::Digest as _;

use crate::hash::{HashKind, ObjectId};

/// Bytes hashed between prefetches; the lines of the next step are
/// requested before this one is hashed. 2 KiB measured best (4 and 8 KiB
/// slightly slower: the lines arrive too early and compete with the rest).
const STEP: usize = 2048;

/// The running checksum of a file being read or written. SHA-1 checksums
/// use the fast (non collision-detecting) implementation, as git does for
/// `csum-file.c`.
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

/// The file checksum of `data` under `hash`.
pub(crate) fn file_checksum(hash: HashKind, data: &[u8]) -> ObjectId {
    let mut hasher = FileHasher::new(hash);
    hasher.update(data);
    hasher.finalize()
}

/// Whether the last `hash.raw_len()` bytes of `file` are the checksum of the rest.
pub(crate) fn trailer_matches(hash: HashKind, file: &[u8]) -> bool {
    let Some(split) = file.len().checked_sub(hash.raw_len()) else {
        return false;
    };
    let (body, trailer) = file.split_at(split);
    file_checksum(hash, body).as_bytes() == trailer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stepped_hashing_equals_one_pass_at_every_split() {
        let data: Vec<u8> = (0..3 * STEP as u32 + 77)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect();
        let sha1_of = |d: &[u8]| {
            use sha1::Digest as _;
            ObjectId::Sha1(sha1::Sha1::digest(d).into())
        };
        let sha256_of = |d: &[u8]| ObjectId::Sha256(sha2::Sha256::digest(d).into());
        for len in [0, 1, 63, 64, STEP - 1, STEP, STEP + 1, data.len()] {
            let d = &data[..len];
            assert_eq!(file_checksum(HashKind::Sha1, d), sha1_of(d), "len {len}");
            assert_eq!(
                file_checksum(HashKind::Sha256, d),
                sha256_of(d),
                "len {len}"
            );
        }
        // Fed in uneven pieces, as the pack stream's blocks arrive.
        let mut hasher = FileHasher::new(HashKind::Sha256);
        for piece in data.chunks(STEP + 13) {
            hasher.update(piece);
        }
        assert_eq!(hasher.finalize(), sha256_of(&data));
    }
}
