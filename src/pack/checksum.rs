//! Trailing checksums of pack and index files (git's `csum-file.c`): the
//! hash of every preceding byte, computed with the fast (non collision
//! detecting) implementation because it only guards against corruption.

use crate::hash::HashKind;

/// The file checksum of `data` under `hash`.
pub(crate) fn file_checksum(hash: HashKind, data: &[u8]) -> Vec<u8> {
    match hash {
        HashKind::Sha1 => {
            use sha1::Digest as _;
            sha1::Sha1::digest(data).to_vec()
        }
        HashKind::Sha256 => {
            use sha2::Digest as _;
            sha2::Sha256::digest(data).to_vec()
        }
    }
}

/// Whether the last `hash.raw_len()` bytes of `file` are the checksum of the rest.
pub(crate) fn trailer_matches(hash: HashKind, file: &[u8]) -> bool {
    let Some(split) = file.len().checked_sub(hash.raw_len()) else {
        return false;
    };
    let (body, trailer) = file.split_at(split);
    file_checksum(hash, body) == trailer
}
