//! Bytes that do not compress.

/// `len` pseudo-random bytes (xorshift), the same for the same `seed`, so
/// zlib cannot shrink them and a failure reproduces.
pub fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect()
}
