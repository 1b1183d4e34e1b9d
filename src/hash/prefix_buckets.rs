//! A fan-out over names sorted by their leading 8 bytes, about one name a
//! bucket: a name is found with one or two comparisons of a `u64` where a
//! binary search takes twenty, each a likely cache miss once the list
//! outgrows the cache (lookups number in the tens of millions for a large
//! history's trees).

use std::ops::Range;

/// Buckets over a sorted list of [`super::ObjectId::leading_u64`] values.
pub struct PrefixBuckets {
    shift: u32,
    /// Entries of bucket `b`: `fanout[b]..fanout[b + 1]`.
    fanout: Vec<u32>,
}

impl PrefixBuckets {
    /// Buckets for `sorted`, which must be in ascending order.
    pub fn new(sorted: &[u64]) -> Self {
        debug_assert!(sorted.is_sorted());
        let n = sorted.len();
        let bits = (usize::BITS - n.leading_zeros()).clamp(1, 24);
        let shift = 64 - bits;
        let mut fanout = vec![0u32; (1 << bits) + 1];
        for &p in sorted {
            fanout[(p >> shift) as usize + 1] += 1;
        }
        for b in 0..1 << bits {
            fanout[b + 1] += fanout[b];
        }
        PrefixBuckets { shift, fanout }
    }

    /// Where names starting with `prefix` may be in the sorted list: the
    /// caller compares the entries of this (short) range.
    pub fn range(&self, prefix: u64) -> Range<usize> {
        let b = (prefix >> self.shift) as usize;
        self.fanout[b] as usize..self.fanout[b + 1] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_in_its_range_and_ranges_are_short() {
        let mut sorted: Vec<u64> = (0..10_000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        sorted.sort_unstable();
        let buckets = PrefixBuckets::new(&sorted);
        let mut longest = 0;
        for (at, &p) in sorted.iter().enumerate() {
            let r = buckets.range(p);
            assert!(r.contains(&at));
            longest = longest.max(r.len());
        }
        assert!(longest < 16, "a bucket holds {longest} names");
        assert!(buckets.range(u64::MAX).len() <= longest);
    }

    #[test]
    fn empty_and_single_lists() {
        assert!(PrefixBuckets::new(&[]).range(42).is_empty());
        let one = PrefixBuckets::new(&[7]);
        assert_eq!(one.range(7), 0..1);
    }
}
