//! The variable-length integers of reftable records: the same encoding as
//! a pack's `OFS_DELTA` offset (big-endian groups of 7 bits, each group
//! but the last with the high bit set, and 1 added to the value before
//! every continuation so that no value has two encodings).

/// Decodes the varint at `data[*pos..]` and moves `pos` past it. `None`
/// when the data ends inside it or the value overflows 64 bits.
pub fn read(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut byte = *data.get(*pos)?;
    *pos += 1;
    let mut value = u64::from(byte & 0x7f);
    while byte & 0x80 != 0 {
        byte = *data.get(*pos)?;
        *pos += 1;
        value = value
            .checked_add(1)?
            .checked_mul(128)?
            .checked_add(u64::from(byte & 0x7f))?;
    }
    Some(value)
}

/// Appends the encoding of `value` to `out` (the pack writer's encoder).
pub fn write(out: &mut Vec<u8>, value: u64) {
    crate::pack::encode_offset_varint(value, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_at_every_group_boundary() {
        for value in [
            0,
            1,
            127,
            128,
            16_511,
            16_512,
            2_113_663,
            u64::MAX - 1,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            write(&mut out, value);
            let mut pos = 0;
            assert_eq!(read(&out, &mut pos), Some(value), "{value}");
            assert_eq!(pos, out.len());
        }
        // 128 is one continuation group: (0 + 1) * 128 + 0.
        let mut out = Vec::new();
        write(&mut out, 128);
        assert_eq!(out, [0x80, 0x00]);
    }

    #[test]
    fn truncated_and_overflowing_input_is_refused() {
        let mut pos = 0;
        assert_eq!(read(&[0x80], &mut pos), None);
        let mut pos = 0;
        assert_eq!(read(&[0xff; 11], &mut pos), None);
    }
}
