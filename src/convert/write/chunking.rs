//! Cutting a sequence of objects into parallel chunks whose memory follows
//! a byte budget as well as a count.

/// Cuts `items` into consecutive chunks of at most `max_items` items and,
/// unless a single item is larger, at most `max_bytes` by `size`.
pub fn chunks_within(
    items: &[u32],
    max_items: usize,
    max_bytes: u64,
    size: impl Fn(u32) -> u64,
) -> Vec<&[u32]> {
    let mut chunks = Vec::new();
    let (mut start, mut bytes) = (0, 0u64);
    for (i, &item) in items.iter().enumerate() {
        let s = size(item);
        if i > start && (i - start == max_items || bytes + s > max_bytes) {
            chunks.push(&items[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes += s;
    }
    if start < items.len() {
        chunks.push(&items[start..]);
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::chunks_within;

    #[test]
    fn chunks_respect_both_limits_and_keep_order() {
        let items: Vec<u32> = (0..10).collect();
        let by_count = chunks_within(&items, 4, u64::MAX, |_| 1);
        assert_eq!(by_count, vec![&[0, 1, 2, 3][..], &[4, 5, 6, 7], &[8, 9]]);
        // Item 3 alone exceeds the byte limit: it gets a chunk of its own.
        let sizes = [10, 10, 10, 500, 10, 10, 10, 10, 10, 10];
        let by_bytes = chunks_within(&items, 100, 35, |i| sizes[i as usize]);
        assert_eq!(by_bytes, vec![&[0, 1, 2][..], &[3], &[4, 5, 6], &[7, 8, 9]]);
        assert!(chunks_within(&[], 4, 4, |_| 1).is_empty());
    }
}
