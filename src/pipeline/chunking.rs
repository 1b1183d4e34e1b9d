//! Cutting a sequence of objects into parallel chunks whose memory follows
//! a byte budget as well as a count, and where a resumed run restarts.

/// The first chunk a run prepares: the first that holds an object
/// `written` does not cover (none left: `chunks.len()`). A chunk's search
/// starts from the objects before it, whatever happened to the chunks
/// before (`write/search_tail.rs`), so a resumed run prepares again at
/// most the objects of this chunk that the interrupted run wrote.
pub fn restart_at<'c>(
    mut chunks: impl ExactSizeIterator<Item = &'c [u32]>,
    written: impl Fn(u32) -> bool,
) -> usize {
    let count = chunks.len();
    chunks
        .position(|chunk| !chunk.iter().all(|&at| written(at)))
        .unwrap_or(count)
}

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
    use super::*;

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

    #[test]
    fn a_resumed_run_restarts_at_the_chunk_of_the_first_unwritten_object() {
        let chunks: Vec<Vec<u32>> = (0..40).map(|c| vec![c * 2, c * 2 + 1]).collect();
        let slices = || chunks.iter().map(Vec::as_slice);
        // Nothing written: from the start.
        assert_eq!(restart_at(slices(), |_| false), 0);
        // Written up to object 40 (chunk 20 half done).
        assert_eq!(restart_at(slices(), |at| at <= 40), 20);
        // Everything written: nothing to prepare.
        assert_eq!(restart_at(slices(), |_| true), 40);
    }
}
