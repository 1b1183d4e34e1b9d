//! Applying git deltas (gitformat-pack "Deltified representation"; git's
//! `patch_delta()` in patch-delta.c and `get_delta_hdr_size()` in delta.h).

use crate::pack::error::DeltaError;
use crate::zlib::grow_within;

/// Reads one size varint (7-bit groups, least significant first).
fn read_varint(delta: &[u8], at: &mut usize) -> Result<u64, DeltaError> {
    let mut value = 0u64;
    let mut shift = 0u32;
    loop {
        let c = *delta.get(*at).ok_or(DeltaError::BadHeader)?;
        *at += 1;
        let group = u64::from(c & 0x7f);
        if shift >= 64 || (shift > 57 && group >> (64 - shift) != 0) {
            return Err(DeltaError::BadHeader);
        }
        value |= group << shift;
        shift += 7;
        if c & 0x80 == 0 {
            return Ok(value);
        }
    }
}

/// The delta header: base size, result size, and the header's length.
pub fn delta_sizes(delta: &[u8]) -> Result<(u64, u64, usize), DeltaError> {
    let mut at = 0;
    let base = read_varint(delta, &mut at)?;
    let result = read_varint(delta, &mut at)?;
    Ok((base, result, at))
}

/// Applies `delta` to `base`, replacing the content of `out` with the result.
///
/// Like git's `patch_delta()`: the base size must match, copies must stay
/// inside the base, nothing may be written past the declared result size,
/// opcode 0 is reserved, a copy size of 0 means 0x10000, and the result must
/// have exactly the declared size. `out` grows with what the instructions
/// produce, never beyond the declared size.
pub fn apply_delta(base: &[u8], delta: &[u8], out: &mut Vec<u8>) -> Result<(), DeltaError> {
    let (base_size, result_size, mut at) = delta_sizes(delta)?;
    if base_size != base.len() as u64 {
        return Err(DeltaError::BaseSizeMismatch {
            expected: base_size,
            actual: base.len() as u64,
        });
    }
    let limit =
        usize::try_from(result_size).map_err(|_| DeltaError::TooLarge { size: result_size })?;
    out.clear();
    while at < delta.len() {
        let start = at;
        let cmd = delta[at];
        at += 1;
        let piece = if cmd & 0x80 != 0 {
            // Copy: bits 0-3 select offset bytes, bits 4-6 size bytes, little-endian.
            let mut fields = [0u64; 2];
            for bit in 0..7 {
                if cmd & (1 << bit) != 0 {
                    let b = *delta.get(at).ok_or(DeltaError::Truncated { at: start })?;
                    at += 1;
                    let (field, shift) = if bit < 4 {
                        (0, bit * 8)
                    } else {
                        (1, (bit - 4) * 8)
                    };
                    fields[field] |= u64::from(b) << shift;
                }
            }
            let [offset, mut size] = fields;
            if size == 0 {
                size = 0x10000;
            }
            let out_of_base = || DeltaError::CopyOutOfBase {
                at: start,
                offset,
                size,
                base_len: base.len() as u64,
            };
            let end = offset.checked_add(size).ok_or_else(out_of_base)?;
            if end > base.len() as u64 {
                return Err(out_of_base());
            }
            // Both fit usize: they are within base.len().
            &base[offset as usize..end as usize]
        } else if cmd != 0 {
            let len = usize::from(cmd);
            let piece = delta
                .get(at..at + len)
                .ok_or(DeltaError::Truncated { at: start })?;
            at += len;
            piece
        } else {
            return Err(DeltaError::ReservedOpcode { at: start });
        };
        if piece.len() > limit - out.len() {
            return Err(DeltaError::ResultOverflow {
                at: start,
                expected: result_size,
            });
        }
        // Geometric growth capped at the declared size.
        grow_within(out, piece.len(), limit);
        out.extend_from_slice(piece);
    }
    if out.len() != limit {
        return Err(DeltaError::ResultSizeMismatch {
            expected: result_size,
            actual: out.len() as u64,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn delta(base: u64, result: u64, ops: &[u8]) -> Vec<u8> {
        let mut d = Vec::new();
        varint(base, &mut d);
        varint(result, &mut d);
        d.extend_from_slice(ops);
        d
    }

    #[test]
    fn copy_and_insert() {
        let base = b"0123456789abcdef";
        // copy offset 10 size 6 ("abcdef"), insert "XY", copy offset 0 size 3.
        let ops = [0x91, 10, 6, 0x02, b'X', b'Y', 0x90, 3];
        let d = delta(16, 11, &ops);
        let mut out = vec![1, 2, 3];
        apply_delta(base, &d, &mut out).unwrap();
        assert_eq!(out, b"abcdefXY012");
        assert_eq!(delta_sizes(&d).unwrap(), (16, 11, 2));
    }

    #[test]
    fn size_zero_means_0x10000_and_multibyte_fields() {
        let base: Vec<u8> = (0..0x20000u32).map(|i| (i % 251) as u8).collect();
        // Offset bytes 0 and 1 (offset 1), no size bytes: size 0x10000.
        let d = delta(0x20000, 0x10000, &[0x83, 0x01, 0x00]);
        let mut out = Vec::new();
        apply_delta(&base, &d, &mut out).unwrap();
        assert_eq!(out, &base[1..0x10001]);
        // Offset bytes 0 and 2 (0x010001), size byte 0 (5).
        let d = delta(0x20000, 5, &[0x95, 0x01, 0x01, 0x05]);
        apply_delta(&base, &d, &mut out).unwrap();
        assert_eq!(out, &base[0x10001..0x10006]);
    }

    #[test]
    fn corrupt_deltas_are_rejected() {
        let base = b"0123456789";
        let mut out = Vec::new();
        // Copy past the base end.
        let d = delta(10, 5, &[0x91, 8, 5]);
        assert!(matches!(
            apply_delta(base, &d, &mut out),
            Err(DeltaError::CopyOutOfBase {
                at: 2,
                offset: 8,
                size: 5,
                base_len: 10
            })
        ));
        // Declared result smaller than produced.
        let d = delta(10, 2, &[0x03, b'a', b'b', b'c']);
        assert!(matches!(
            apply_delta(base, &d, &mut out),
            Err(DeltaError::ResultOverflow { at: 2, expected: 2 })
        ));
        // Declared result larger than produced.
        let d = delta(10, 4, &[0x03, b'a', b'b', b'c']);
        assert_eq!(
            apply_delta(base, &d, &mut out),
            Err(DeltaError::ResultSizeMismatch {
                expected: 4,
                actual: 3
            })
        );
        // Reserved opcode 0.
        let d = delta(10, 1, &[0x00, 0x01, b'a']);
        assert_eq!(
            apply_delta(base, &d, &mut out),
            Err(DeltaError::ReservedOpcode { at: 2 })
        );
        // Truncated insert and truncated copy arguments.
        let d = delta(10, 3, &[0x03, b'a']);
        assert_eq!(
            apply_delta(base, &d, &mut out),
            Err(DeltaError::Truncated { at: 2 })
        );
        let d = delta(10, 3, &[0x91, 0]);
        assert_eq!(
            apply_delta(base, &d, &mut out),
            Err(DeltaError::Truncated { at: 2 })
        );
        // Wrong base size.
        let d = delta(11, 1, &[0x01, b'a']);
        assert_eq!(
            apply_delta(base, &d, &mut out),
            Err(DeltaError::BaseSizeMismatch {
                expected: 11,
                actual: 10
            })
        );
        // Truncated and overflowing headers.
        assert_eq!(
            apply_delta(base, &[0x8a], &mut out),
            Err(DeltaError::BadHeader)
        );
        assert_eq!(delta_sizes(&[0xff; 11]), Err(DeltaError::BadHeader));
    }

    #[test]
    fn forged_result_size_does_not_reserve_memory() {
        // Declares an exabyte result and inserts one byte.
        let d = delta(10, 1 << 60, &[0x01, b'a']);
        let mut out = Vec::new();
        assert!(matches!(
            apply_delta(b"0123456789", &d, &mut out),
            Err(DeltaError::ResultSizeMismatch { .. }) | Err(DeltaError::TooLarge { .. })
        ));
        assert!(out.capacity() <= 8 << 20);
    }
}
