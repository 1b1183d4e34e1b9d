//! Pack entry headers (gitformat-pack "Pack file entries: objects and
//! deltas"; git's `unpack_object_header_buffer()` and
//! `get_delta_base()` in packfile.c).

use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;

/// Pack type code of an OFS_DELTA entry (git's `OBJ_OFS_DELTA`).
pub const OBJ_OFS_DELTA: u8 = 6;
/// Pack type code of a REF_DELTA entry (git's `OBJ_REF_DELTA`).
pub const OBJ_REF_DELTA: u8 = 7;

/// What a pack entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A whole object, zlib-compressed.
    Base(ObjectKind),
    /// A delta against the entry at `base_offset` (earlier in this pack).
    OfsDelta { base_offset: u64 },
    /// A delta against the object named `base_id`.
    RefDelta { base_id: ObjectId },
}

/// A parsed entry header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Offset of the entry's first header byte in the pack.
    pub offset: u64,
    /// Offset of the zlib stream, right after the header (and base reference).
    pub data_offset: u64,
    /// Inflated size of the zlib stream: the object, or the delta.
    pub size: u64,
    pub kind: EntryKind,
}

impl Entry {
    /// Bytes of header, including the delta base reference.
    pub fn header_len(&self) -> u64 {
        self.data_offset - self.offset
    }

    pub fn is_delta(&self) -> bool {
        !matches!(self.kind, EntryKind::Base(_))
    }
}

/// Why an entry header could not be parsed; the caller adds path and offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderFault {
    /// The bytes end inside the header.
    Truncated,
    /// Type code 0 or 5.
    BadType(u8),
    /// The size or the base distance does not fit 64 bits.
    Overflow,
    /// The OFS_DELTA distance points at or before the pack start.
    BaseOutOfRange(u64),
}

/// Parses the header of the entry at `offset`, whose bytes start `bytes`
/// (which may extend to the end of the pack data).
pub(crate) fn parse_entry(
    bytes: &[u8],
    offset: u64,
    hash: HashKind,
    pack_header_len: u64,
) -> Result<Entry, HeaderFault> {
    let mut at = 0usize;
    let mut next = || {
        let b = *bytes.get(at).ok_or(HeaderFault::Truncated)?;
        at += 1;
        Ok::<u8, HeaderFault>(b)
    };
    // Type and size: `MTTTSSSS`, then `MSSSSSSS` groups, least significant first.
    let mut c = next()?;
    let code = (c >> 4) & 7;
    let mut size = u64::from(c & 0x0f);
    let mut shift = 4u32;
    while c & 0x80 != 0 {
        c = next()?;
        let group = u64::from(c & 0x7f);
        if shift >= 64 || (shift > 57 && group >> (64 - shift) != 0) {
            return Err(HeaderFault::Overflow);
        }
        size |= group << shift;
        shift += 7;
    }
    let kind = match code {
        OBJ_OFS_DELTA => {
            // Offset encoding: most significant group first, plus one per
            // continuation byte so every distance has one encoding.
            let mut c = next()?;
            let mut distance = u64::from(c & 0x7f);
            while c & 0x80 != 0 {
                c = next()?;
                distance = distance
                    .checked_add(1)
                    .filter(|d| d >> 57 == 0)
                    .ok_or(HeaderFault::Overflow)?;
                distance = (distance << 7) | u64::from(c & 0x7f);
            }
            let base_offset = offset.saturating_sub(distance);
            if distance == 0 || base_offset < pack_header_len {
                return Err(HeaderFault::BaseOutOfRange(base_offset));
            }
            EntryKind::OfsDelta { base_offset }
        }
        OBJ_REF_DELTA => {
            let raw = bytes
                .get(at..at + hash.raw_len())
                .ok_or(HeaderFault::Truncated)?;
            at += hash.raw_len();
            EntryKind::RefDelta {
                base_id: ObjectId::from_raw(hash, raw).expect("slice has raw_len bytes"),
            }
        }
        other => {
            EntryKind::Base(ObjectKind::from_pack_code(other).ok_or(HeaderFault::BadType(other))?)
        }
    };
    Ok(Entry {
        offset,
        data_offset: offset + at as u64,
        size,
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_header_multi_byte_size() {
        // blob (3), size 0x123 = 0b1_0010_0011: low nibble 3, then 0x12.
        let e = parse_entry(&[0xb3, 0x12, 0x78, 0x9c], 100, HashKind::Sha1, 12).unwrap();
        assert_eq!(e.kind, EntryKind::Base(ObjectKind::Blob));
        assert_eq!(e.size, 0x123);
        assert_eq!(e.data_offset, 102);
        assert_eq!(e.header_len(), 2);
    }

    #[test]
    fn ofs_delta_offset_encoding() {
        // distance bytes 0x81 0x00: ((1 + 1) << 7) | 0 = 256.
        let e = parse_entry(&[0x65, 0x81, 0x00], 1000, HashKind::Sha1, 12).unwrap();
        assert_eq!(e.kind, EntryKind::OfsDelta { base_offset: 744 });
        assert_eq!(e.size, 5);
        assert_eq!(e.header_len(), 3);
        assert_eq!(
            parse_entry(&[0x65, 0x00], 1000, HashKind::Sha1, 12),
            Err(HeaderFault::BaseOutOfRange(1000))
        );
        assert_eq!(
            parse_entry(&[0x65, 0x81, 0x00], 200, HashKind::Sha1, 12),
            Err(HeaderFault::BaseOutOfRange(0))
        );
    }

    #[test]
    fn ref_delta_and_faults() {
        let mut bytes = vec![0x70];
        bytes.extend_from_slice(&[0xab; 20]);
        let e = parse_entry(&bytes, 12, HashKind::Sha1, 12).unwrap();
        assert_eq!(
            e.kind,
            EntryKind::RefDelta {
                base_id: ObjectId::Sha1([0xab; 20])
            }
        );
        assert_eq!(
            parse_entry(&bytes[..10], 12, HashKind::Sha1, 12),
            Err(HeaderFault::Truncated)
        );
        assert_eq!(
            parse_entry(&[0x00], 12, HashKind::Sha1, 12),
            Err(HeaderFault::BadType(0))
        );
        assert_eq!(
            parse_entry(&[0x50], 12, HashKind::Sha1, 12),
            Err(HeaderFault::BadType(5))
        );
        assert_eq!(
            parse_entry(&[0x90], 12, HashKind::Sha1, 12),
            Err(HeaderFault::Truncated)
        );
        let overflow = [
            0xb0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
        ];
        assert_eq!(
            parse_entry(&overflow, 12, HashKind::Sha1, 12),
            Err(HeaderFault::Overflow)
        );
    }
}
