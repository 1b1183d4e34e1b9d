//! A reftable file's fixed parts: the header at its start and the footer
//! at its end, which repeats the header and adds where each section
//! begins, sealed with a CRC-32.
//!
//! ```text
//! header: 'REFT' u8(version) u24(block_size) u64(min_update_index)
//!         u64(max_update_index) [u32(hash_id), version 2 only]
//! footer: header, u64(ref_index_position), u64(obj_position << 5 | obj_id_len),
//!         u64(obj_index_position), u64(log_position), u64(log_index_position),
//!         u32(CRC-32 of all of the above)
//! ```
//!
//! Version 1 holds SHA-1 ids (20 bytes); version 2 names its hash in the
//! header (`sha1` or `s256`), which is how git stores SHA-256 refs.

use crate::hash::HashKind;

const MAGIC: &[u8; 4] = b"REFT";
const SHA1_ID: u32 = u32::from_be_bytes(*b"sha1");
const SHA256_ID: u32 = u32::from_be_bytes(*b"s256");

/// The largest block a 24-bit length can describe.
pub const MAX_BLOCK_SIZE: usize = (1 << 24) - 1;

/// Everything the footer says about a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Footer {
    pub version: u8,
    /// Alignment of ref, obj and index blocks; 0 in an unaligned file.
    pub block_size: u32,
    pub min_update_index: u64,
    pub max_update_index: u64,
    pub hash: HashKind,
    pub ref_index_position: u64,
    pub obj_position: u64,
    pub obj_id_len: u8,
    pub obj_index_position: u64,
    pub log_position: u64,
    pub log_index_position: u64,
}

/// Bytes of the header of a file of `version`.
pub fn header_size(version: u8) -> usize {
    if version == 1 { 24 } else { 28 }
}

/// Bytes of the footer of a file of `version`.
pub fn footer_size(version: u8) -> usize {
    header_size(version) + 44
}

impl Footer {
    /// The version git writes for `hash`: 1 for SHA-1, 2 for SHA-256.
    pub fn version_for(hash: HashKind) -> u8 {
        match hash {
            HashKind::Sha1 => 1,
            HashKind::Sha256 => 2,
        }
    }

    /// Reads and checks the footer of the whole file `file`: magic,
    /// version, hash id, the header repeated, and the CRC-32.
    pub fn parse(file: &[u8]) -> Result<Footer, String> {
        if file.len() < header_size(1) + 1 || &file[..4] != MAGIC {
            return Err("no reftable header (the file does not start with REFT)".into());
        }
        let version = file[4];
        if version != 1 && version != 2 {
            return Err(format!("unknown reftable version {version}"));
        }
        let (header_len, footer_len) = (header_size(version), footer_size(version));
        if file.len() < header_len + footer_len {
            return Err(format!("{} bytes is too short for a table", file.len()));
        }
        let footer = &file[file.len() - footer_len..];
        let (sealed, crc) = footer.split_at(footer_len - 4);
        if crc32fast::hash(sealed).to_be_bytes() != crc {
            return Err("footer CRC-32 mismatch".into());
        }
        if footer[..header_len] != file[..header_len] {
            return Err("the footer does not repeat the header".into());
        }
        let u64_at = |at: usize| u64::from_be_bytes(footer[at..at + 8].try_into().expect("8"));
        let hash = match version {
            1 => HashKind::Sha1,
            _ => match u32::from_be_bytes(footer[24..28].try_into().expect("4")) {
                SHA1_ID => HashKind::Sha1,
                SHA256_ID => HashKind::Sha256,
                other => return Err(format!("unknown hash id {other:#010x}")),
            },
        };
        let positions = header_len;
        let obj = u64_at(positions + 8);
        Ok(Footer {
            version,
            block_size: u32::from_be_bytes([0, footer[5], footer[6], footer[7]]),
            min_update_index: u64_at(8),
            max_update_index: u64_at(16),
            hash,
            ref_index_position: u64_at(positions),
            obj_position: obj >> 5,
            obj_id_len: (obj & 0x1f) as u8,
            obj_index_position: u64_at(positions + 16),
            log_position: u64_at(positions + 24),
            log_index_position: u64_at(positions + 32),
        })
    }

    /// The file header.
    pub fn header_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(header_size(self.version));
        out.extend_from_slice(MAGIC);
        out.push(self.version);
        out.extend_from_slice(&self.block_size.to_be_bytes()[1..]);
        out.extend_from_slice(&self.min_update_index.to_be_bytes());
        out.extend_from_slice(&self.max_update_index.to_be_bytes());
        if self.version != 1 {
            let id = match self.hash {
                HashKind::Sha1 => SHA1_ID,
                HashKind::Sha256 => SHA256_ID,
            };
            out.extend_from_slice(&id.to_be_bytes());
        }
        out
    }

    /// The footer, CRC-32 included.
    pub fn footer_bytes(&self) -> Vec<u8> {
        let mut out = self.header_bytes();
        for value in [
            self.ref_index_position,
            (self.obj_position << 5) | u64::from(self.obj_id_len),
            self.obj_index_position,
            self.log_position,
            self.log_index_position,
        ] {
            out.extend_from_slice(&value.to_be_bytes());
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn footer(hash: HashKind) -> Footer {
        Footer {
            version: Footer::version_for(hash),
            block_size: 4096,
            min_update_index: 1,
            max_update_index: 7,
            hash,
            ref_index_position: 8192,
            obj_position: 0,
            obj_id_len: 0,
            obj_index_position: 0,
            log_position: 12_000,
            log_index_position: 0,
        }
    }

    #[test]
    fn header_and_footer_round_trip_in_both_versions() {
        for hash in [HashKind::Sha1, HashKind::Sha256] {
            let f = footer(hash);
            let mut file = f.header_bytes();
            assert_eq!(file.len(), header_size(f.version));
            file.push(b'r');
            file.extend_from_slice(&f.footer_bytes());
            assert_eq!(Footer::parse(&file), Ok(f));
        }
    }

    #[test]
    fn damage_is_reported() {
        let f = footer(HashKind::Sha256);
        let mut file = f.header_bytes();
        file.extend_from_slice(&f.footer_bytes());
        let mut flipped = file.clone();
        let last = flipped.len() - 10;
        flipped[last] ^= 1;
        assert!(Footer::parse(&flipped).unwrap_err().contains("CRC"));
        let mut other_header = file.clone();
        other_header[10] ^= 1;
        assert!(Footer::parse(&other_header).unwrap_err().contains("repeat"));
        assert!(Footer::parse(b"REFX").is_err());
        let mut version = file;
        version[4] = 3;
        assert!(Footer::parse(&version).unwrap_err().contains("version 3"));
    }
}
