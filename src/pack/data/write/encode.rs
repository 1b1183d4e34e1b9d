//! Byte encodings inside a pack entry: the type-and-size header and the
//! OFS_DELTA base distance (git's `Documentation/gitformat-pack.txt`,
//! "Pack file entries"; `encode_in_pack_object_header` in `pack-write.c` and
//! the offset loop of `write_no_reuse_object` in `builtin/pack-objects.c`).

/// Longest entry header: 4 size bits in the first byte, then 7 per byte,
/// so a `u64` size needs 1 + ceil(60 / 7) = 10 bytes.
pub const MAX_ENTRY_HEADER_LEN: usize = 10;
/// Longest OFS_DELTA distance encoding for a `u64` (ceil(64 / 7) = 10 bytes).
pub const MAX_OFS_LEN: usize = 10;

/// Appends the entry header: `type_code` (1-4, 6 or 7) and the *inflated*
/// `size`, as `Mttt ssss` then `Msss ssss`... with the least significant
/// size bits first (git's `encode_in_pack_object_header`).
pub fn encode_entry_header(type_code: u8, size: u64, out: &mut Vec<u8>) {
    debug_assert!((1..=7).contains(&type_code) && type_code != 5);
    let mut rest = size >> 4;
    let mut byte = (type_code << 4) | (size & 0x0f) as u8;
    while rest != 0 {
        out.push(byte | 0x80);
        byte = (rest & 0x7f) as u8;
        rest >>= 7;
    }
    out.push(byte);
}

/// Appends the OFS_DELTA base distance (entry offset minus base offset,
/// never 0): 7-bit groups, most significant first, MSB set on every byte but
/// the last, and one subtracted from each higher group so that every value
/// has exactly one encoding (the reader does `d = ((d + 1) << 7) | next`).
pub fn encode_ofs_distance(distance: u64, out: &mut Vec<u8>) {
    debug_assert!(distance > 0, "an entry cannot be its own base");
    encode_offset_varint(distance, out);
}

/// The encoding of [`encode_ofs_distance`] for any value, 0 included: the
/// reftable format stores all its integers this way.
pub fn encode_offset_varint(value: u64, out: &mut Vec<u8>) {
    let mut buf = [0u8; MAX_OFS_LEN];
    let mut pos = buf.len() - 1;
    let mut d = value;
    buf[pos] = (d & 0x7f) as u8;
    d >>= 7;
    while d != 0 {
        d -= 1;
        pos -= 1;
        buf[pos] = 0x80 | (d & 0x7f) as u8;
        d >>= 7;
    }
    out.extend_from_slice(&buf[pos..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::data::entry::{OBJ_OFS_DELTA, OBJ_REF_DELTA};

    /// The reader side, as in git's `unpack_object_header_buffer`.
    fn decode_entry_header(buf: &[u8]) -> (u8, u64, usize) {
        let mut c = buf[0];
        let kind = (c >> 4) & 7;
        let mut size = u64::from(c & 15);
        let mut shift = 4;
        let mut used = 1;
        while c & 0x80 != 0 {
            c = buf[used];
            used += 1;
            size += u64::from(c & 0x7f) << shift;
            shift += 7;
        }
        (kind, size, used)
    }

    /// The reader side, as in git's `get_delta_base`.
    fn decode_ofs(buf: &[u8]) -> (u64, usize) {
        let mut c = buf[0];
        let mut used = 1;
        let mut d = u64::from(c & 0x7f);
        while c & 0x80 != 0 {
            c = buf[used];
            used += 1;
            d = ((d + 1) << 7) | u64::from(c & 0x7f);
        }
        (d, used)
    }

    #[test]
    fn entry_header_known_bytes() {
        let mut out = Vec::new();
        encode_entry_header(3, 15, &mut out);
        assert_eq!(out, [0x3f]);
        out.clear();
        encode_entry_header(1, 16, &mut out);
        assert_eq!(out, [0x90, 0x01]);
        out.clear();
        encode_entry_header(2, 0, &mut out);
        assert_eq!(out, [0x20]);
    }

    #[test]
    fn entry_header_round_trips_up_to_u64_max() {
        for size in [
            0,
            1,
            15,
            16,
            127,
            128,
            2047,
            2048,
            1 << 31,
            1 << 35,
            u64::MAX,
        ] {
            for code in [1, 2, 3, 4, OBJ_OFS_DELTA, OBJ_REF_DELTA] {
                let mut out = Vec::new();
                encode_entry_header(code, size, &mut out);
                assert!(out.len() <= MAX_ENTRY_HEADER_LEN);
                assert_eq!(decode_entry_header(&out), (code, size, out.len()));
            }
        }
    }

    #[test]
    fn ofs_distance_known_bytes() {
        let mut out = Vec::new();
        encode_ofs_distance(127, &mut out);
        assert_eq!(out, [0x7f]);
        out.clear();
        encode_ofs_distance(128, &mut out);
        assert_eq!(out, [0x80, 0x00]);
        out.clear();
        encode_ofs_distance(16511, &mut out);
        assert_eq!(out, [0xff, 0x7f]);
        out.clear();
        encode_ofs_distance(16512, &mut out);
        assert_eq!(out, [0x80, 0x80, 0x00]);
    }

    #[test]
    fn ofs_distance_round_trips() {
        let mut d = 1u64;
        while d < u64::MAX / 3 {
            for v in [d - 1, d, d + 1].into_iter().filter(|&v| v > 0) {
                let mut out = Vec::new();
                encode_ofs_distance(v, &mut out);
                assert!(out.len() <= MAX_OFS_LEN);
                assert_eq!(decode_ofs(&out), (v, out.len()), "distance {v}");
            }
            d *= 3;
        }
        let mut out = Vec::new();
        encode_ofs_distance(u64::MAX, &mut out);
        assert_eq!(decode_ofs(&out), (u64::MAX, out.len()));
    }
}
