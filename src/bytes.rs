//! Byte-slice comparisons shared by the delta encoder and the walks that
//! line up two versions of a tree.

/// The length of the common prefix of `a` and `b`, eight bytes at a time;
/// past the first [`LONG_MATCH`] bytes, a block of that many at a time
/// through the C library's vectorised comparison, since a match that long
/// (versions of a large file) usually runs on for thousands of bytes more.
pub fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let short = eight_at_a_time(&a[..n.min(LONG_MATCH)], &b[..n.min(LONG_MATCH)]);
    if short < LONG_MATCH {
        return short;
    }
    let mut i = LONG_MATCH;
    while i + LONG_MATCH <= n && a[i..i + LONG_MATCH] == b[i..i + LONG_MATCH] {
        i += LONG_MATCH;
    }
    i + eight_at_a_time(&a[i..n], &b[i..n])
}

/// Bytes compared eight at a time before [`common_prefix`] turns to whole
/// blocks.
const LONG_MATCH: usize = 256;

/// [`common_prefix`] of two slices, eight bytes at a time.
fn eight_at_a_time(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().expect("8 bytes"))
            ^ u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// The length of the common suffix of `a` and `b`, eight bytes at a time.
pub fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[n - i - 8..n - i].try_into().expect("8 bytes"))
            ^ u64::from_le_bytes(b[n - i - 8..n - i].try_into().expect("8 bytes"));
        if x != 0 {
            return i + (x.leading_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[n - i - 1] == b[n - i - 1] {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_prefix_matches_a_byte_scan() {
        // Short lengths at every position, and long ones (compared block
        // by block) around the block edges.
        let a: Vec<u8> = (0..1100u32).map(|i| (i * 7 + i / 256) as u8).collect();
        let edges = [255, 256, 257, 511, 512, 513, 767, 768, 1099];
        let lens = (0..40).chain(edges).chain([1100]);
        for len in lens {
            let differs = (0..len.min(40)).chain(edges.into_iter().filter(|&d| d < len));
            for differ in differs.chain([len]) {
                let mut b = a[..len].to_vec();
                if differ < len {
                    b[differ] ^= 0x80;
                }
                let naive = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
                assert_eq!(common_prefix(&a, &b), naive, "len {len} differ {differ}");
            }
        }
    }

    #[test]
    fn common_suffix_matches_a_byte_scan() {
        let a: Vec<u8> = (0..300u32).map(|i| (i * 13 + i / 7) as u8).collect();
        for len in 0..=a.len() {
            for differ in (0..len.min(40)).chain([len / 2, len]) {
                let mut b = a[a.len() - len..].to_vec();
                if differ < len {
                    let at = b.len() - 1 - differ;
                    b[at] ^= 0x80;
                }
                let naive = a
                    .iter()
                    .rev()
                    .zip(b.iter().rev())
                    .take_while(|(x, y)| x == y)
                    .count();
                assert_eq!(common_suffix(&a, &b), naive, "len {len} differ {differ}");
            }
        }
    }
}
