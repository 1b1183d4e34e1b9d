//! Creating git deltas (gitformat-pack "Deltified representation"), in the
//! model of git's `diff-delta.c` (`create_delta_index`, `create_delta`).
//!
//! The base is indexed once ([`DeltaIndex`]): every aligned 16-byte block
//! gets a 32-bit rolling fingerprint, and the blocks are filed by it in a
//! hash table of about one bucket per four blocks, each bucket's entries
//! side by side in one array, by ascending base offset. An entry keeps its
//! whole fingerprint, so a lookup skips the entries that only share the
//! bucket without reading the base. A run of identical blocks is filed
//! once (its first block: a match from there runs on through the rest),
//! and a bucket over [`HASH_LIMIT`] entries (repetitive bases) keeps that
//! many, spread evenly over the base, so every lookup stays cheap.
//! Beyond git's layout, each bucket has a 32-bit presence mask (one bit
//! per 5 more bits of the fingerprint): a lookup whose bit is clear, as
//! for most positions of new text, ends without reading the bucket. On
//! real objects that takes a third of the encoder's time off for version
//! pairs and half for dissimilar inputs, for one byte per indexed block.
//!
//! A target is then scanned with the same rolling fingerprint over a
//! 16-byte window. As in git, a match starts at the window's last byte
//! (the scan position) and runs forward from the last byte of each
//! filed block of the bucket; the longest wins, with git's two cutoffs: a
//! candidate whose rest of the base cannot beat the match in hand ends the
//! scan (offsets only grow along a bucket), and so does a match of
//! [`GOOD_ENOUGH`] bytes. The winner is extended backward into the pending
//! literal bytes (the window itself, where they are literal) and kept if
//! it covers [`MIN_COPY`] bytes in all. Right after a copy the window
//! holds the copied bytes, so the scan finds where else in the base the
//! text goes on as the target does: a translation file whose strings
//! recur in the base in another order is copied in long runs where an
//! anchor on new text alone would leave short literal gaps (git.git's
//! blob deltas are 5% smaller for it). Copies are emitted as opcodes of
//! at most 64 KiB each (as git does); bytes without a match become insert
//! opcodes of at most 127 bytes. The window search diffs one target
//! against many bases, so it keeps one index per base in its window.

use crate::bytes::common_prefix;

/// Bytes per indexed block and per rolling-hash window (git's `RABIN_WINDOW`).
const BLOCK: usize = 16;
/// Most entries one bucket keeps (git's `HASH_LIMIT`).
const HASH_LIMIT: usize = 64;
/// A match this long ends the search of its bucket (git's "good enough"):
/// a longer one would save at most a few opcode bytes.
const GOOD_ENOUGH: usize = 4096;
/// Largest size of one copy opcode git emits.
const MAX_COPY: usize = 0x10000;
/// Largest literal run of one insert opcode.
const MAX_INSERT: usize = 0x7f;
/// A shorter match is left as literal bytes: a copy opcode costs up to 8
/// bytes and compresses worse than text, and a short match taken can hide
/// a longer one starting a few bytes on. (On git.git's trees and blobs,
/// 16 measured within 0.1% of the best of 4 to 28.)
const MIN_COPY: usize = 16;
/// Multiplier of the polynomial rolling hash (odd, so it is invertible).
const ROLL: u32 = 0x0100_0193;

/// One indexed block of the base.
#[derive(Clone, Copy, Default)]
struct Entry {
    /// The rolling fingerprint of the block's 16 bytes.
    fingerprint: u32,
    /// Where the block starts in the base.
    offset: u32,
}

/// A delta from [`DeltaIndex::encode_traced`]: `encode` returns `delta`
/// exactly when its `max_size` is at least `least_bound` (the delta's
/// length, or more where the scan's early stop looked at a longer
/// estimate), and `None` below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracedDelta {
    pub delta: Vec<u8>,
    pub least_bound: usize,
}

/// An index of a delta base, built once and reused for many targets.
pub struct DeltaIndex<B: AsRef<[u8]>> {
    base: B,
    /// The entries of bucket `b` are `entries[starts[b]..starts[b + 1]]`,
    /// by ascending offset.
    starts: Vec<u32>,
    entries: Vec<Entry>,
    shift: u32,
    /// Per bucket, a bit for each [`presence_bit`] of its fingerprints: a
    /// lookup whose bit is clear (most in new text) ends without reading
    /// the bucket.
    present: Vec<u32>,
}

impl<B: AsRef<[u8]>> DeltaIndex<B> {
    /// Indexes `base` (git's `create_delta_index`). Bases of 4 GiB or more
    /// are indexed only in their first 4 GiB (copy offsets are 32-bit).
    pub fn new(base: B) -> Self {
        let bytes = base.as_ref();
        let blocks = bytes.len().min(u32::MAX as usize - BLOCK) / BLOCK;
        // About four blocks a bucket, at least 16 buckets.
        let bits = (usize::BITS - (blocks / 4).saturating_sub(1).leading_zeros()).clamp(4, 31);
        let shift = 32 - bits;
        // The blocks to file, by ascending offset. A block equal to the one
        // before it is not filed: a match at the first block of the run
        // goes on through it. (Hashing each block twice, once per pass,
        // measured no slower than keeping the fingerprints in between.)
        let filed = || {
            let mut previous: Option<(u32, &[u8])> = None;
            bytes[..blocks * BLOCK]
                .chunks_exact(BLOCK)
                .enumerate()
                .filter_map(move |(b, block)| {
                    let fingerprint = window_hash(block);
                    let repeat = previous.is_some_and(|(f, p)| f == fingerprint && p == block);
                    previous = Some((fingerprint, block));
                    (!repeat).then_some(Entry {
                        fingerprint,
                        offset: (b * BLOCK) as u32,
                    })
                })
        };
        // A counting sort by bucket. `starts[h + 1]` first counts bucket
        // `h`, then holds where it starts, then, as its entries are placed,
        // where it ends, which is where bucket `h + 1` starts.
        let mut starts = vec![0u32; (1usize << bits) + 1];
        for entry in filed() {
            starts[bucket(entry.fingerprint, shift) + 1] += 1;
        }
        let mut total = 0;
        for start in &mut starts[1..] {
            (*start, total) = (total, total + *start);
        }
        let mut entries = vec![Entry::default(); total as usize];
        for entry in filed() {
            let end = &mut starts[bucket(entry.fingerprint, shift) + 1];
            entries[*end as usize] = entry;
            *end += 1;
        }
        cull_buckets(&mut starts, &mut entries);
        let mut present = vec![0u32; starts.len() - 1];
        for entry in &entries {
            present[bucket(entry.fingerprint, shift)] |= presence_bit(entry.fingerprint, shift);
        }
        DeltaIndex {
            base,
            starts,
            entries,
            shift,
            present,
        }
    }

    pub fn base(&self) -> &[u8] {
        self.base.as_ref()
    }

    /// Heap bytes held by the index (not counting the base).
    pub fn memory(&self) -> usize {
        (self.starts.len() + self.present.len()) * size_of::<u32>()
            + self.entries.capacity() * size_of::<Entry>()
    }

    /// The delta turning the base into `target`, or `None` if it would be
    /// longer than `max_size` bytes (git's `create_delta` with `max_size`).
    pub fn encode(&self, target: &[u8], max_size: usize) -> Option<Vec<u8>> {
        self.encode_traced(target, max_size).map(|d| d.delta)
    }

    /// [`DeltaIndex::encode`], with the least `max_size` it returns this
    /// delta under. `max_size` only decides where the scan gives up, never
    /// what it writes, so one scan under a loose limit answers for every
    /// tighter one: a search can diff against several bases at once and
    /// still choose as if it had tried them one by one.
    pub fn encode_traced(&self, target: &[u8], max_size: usize) -> Option<TracedDelta> {
        let mut out = Vec::with_capacity((target.len() / 8 + 32).min(max_size.saturating_add(1)));
        let base = self.base.as_ref();
        push_varint(&mut out, base.len() as u64);
        push_varint(&mut out, target.len() as u64);
        let mut literal_start = 0usize;
        // The scan position: the last byte of the window hashed, where a
        // match starts (the window before it is context, taken back from
        // the pending literal bytes by the backward extension).
        let mut pos = BLOCK - 1;
        let mut hash = 0u32;
        // The target position `hash` is the window hash of (none yet).
        let mut hashed_at = usize::MAX;
        // The largest length the scan measured against `max_size` so far.
        let mut least_bound = 0usize;
        while pos < target.len() {
            if hashed_at != pos {
                hash = window_hash(&target[pos + 1 - BLOCK..=pos]);
                hashed_at = pos;
            }
            let (moff, forward) = self.longest_match(target, pos, hash);
            // Extended backward into the pending literal bytes (the window
            // itself, unless a copy just ended there).
            let mut back = 0;
            while forward > 0
                && back < pos - literal_start
                && back < moff
                && base[moff - back - 1] == target[pos - back - 1]
            {
                back += 1;
            }
            if forward + back >= MIN_COPY {
                let (moff, mlen) = (moff - back, forward + back);
                pos -= back;
                push_inserts(&mut out, &target[literal_start..pos]);
                push_copies(&mut out, moff, mlen);
                if out.len() > max_size {
                    return None;
                }
                pos += mlen;
                literal_start = pos;
                continue;
            }
            // No match: this byte is literal; roll the window one byte.
            if pos + 1 < target.len() {
                hash = roll(hash, target[pos + 1 - BLOCK], target[pos + 1]);
                hashed_at = pos + 1;
            }
            pos += 1;
            // Give up once the pending literal bytes cannot fit. A later
            // match extended backward takes back fewer than 2 * BLOCK of
            // them: an equal run that long holds a whole filed block and
            // the bytes after it, which the scan would have found. (Where
            // a bucket was culled, the block may not be filed: there this
            // stop can come early.)
            let pending = pos - literal_start;
            if pending >= 4 * MAX_INSERT {
                let at_least = out.len() + pending - 2 * BLOCK;
                if at_least > max_size {
                    return None;
                }
                least_bound = least_bound.max(at_least);
            }
        }
        push_inserts(&mut out, &target[literal_start..]);
        // Lengths measured after copies never exceed the final one.
        let least_bound = least_bound.max(out.len());
        (out.len() <= max_size).then_some(TracedDelta {
            delta: out,
            least_bound,
        })
    }

    /// The longest match for `target[pos..]` among the entries filed
    /// under `fingerprint`: (base offset, length).
    fn longest_match(&self, target: &[u8], pos: usize, fingerprint: u32) -> (usize, usize) {
        let mut best = (0usize, 0usize);
        if self.entries.is_empty() {
            return best;
        }
        let base = self.base.as_ref();
        let want = &target[pos..];
        let h = bucket(fingerprint, self.shift);
        if self.present[h] & presence_bit(fingerprint, self.shift) == 0 {
            return best;
        }
        let filed = &self.entries[self.starts[h] as usize..self.starts[h + 1] as usize];
        for entry in filed {
            // A match runs on from the block's last byte, the one the
            // target's window ends at.
            let off = entry.offset as usize + BLOCK - 1;
            // Offsets ascend along the bucket, so what the base has left
            // after them only shrinks: once it cannot beat the match in
            // hand, no later entry can.
            if (base.len() - off).min(want.len()) <= best.1 {
                break;
            }
            if entry.fingerprint != fingerprint {
                continue;
            }
            let len = common_prefix(&base[off..], want);
            if len > best.1 {
                best = (off, len);
                if len >= GOOD_ENOUGH {
                    break;
                }
            }
        }
        best
    }
}

/// Cuts every bucket of more than [`HASH_LIMIT`] entries down to that
/// many, the first of each of as many even strides, so that the kept ones
/// still cover the whole base (a repetitive run is found wherever it is)
/// and a lookup never tries more than that many. Buckets stay in place
/// order; `starts` is updated to match.
fn cull_buckets(starts: &mut [u32], entries: &mut Vec<Entry>) {
    if starts
        .windows(2)
        .all(|w| (w[1] - w[0]) as usize <= HASH_LIMIT)
    {
        return;
    }
    let buckets = starts.len() - 1;
    let (mut read, mut write) = (0usize, 0usize);
    for h in 0..buckets {
        let end = starts[h + 1] as usize;
        let count = end - read;
        let keep = count.min(HASH_LIMIT);
        // In place: entry `k` moves down or stays (`read + k * count /
        // keep` is at least `write + k`), and is read before it is written.
        for k in 0..keep {
            entries[write + k] = entries[read + k * count / keep];
        }
        starts[h] = write as u32;
        write += keep;
        read = end;
    }
    starts[buckets] = write as u32;
    entries.truncate(write);
    entries.shrink_to_fit();
}

/// The delta turning `base` into `target`, or `None` if longer than
/// `max_size` (pass `usize::MAX` for no limit). Indexes `base` once; use
/// [`DeltaIndex`] to diff many targets against one base.
pub fn encode_delta(base: &[u8], target: &[u8], max_size: usize) -> Option<Vec<u8>> {
    DeltaIndex::new(base).encode(target, max_size)
}

/// `ROLL^(BLOCK-1-i)` for byte `i` of a window.
const WEIGHTS: [u32; BLOCK] = {
    let mut weights = [1u32; BLOCK];
    let mut i = BLOCK - 1;
    while i > 0 {
        weights[i - 1] = weights[i].wrapping_mul(ROLL);
        i -= 1;
    }
    weights
};

/// The rolling hash of one window, `sum(byte[i] * ROLL^(BLOCK-1-i))`:
/// written as a sum of independent products (not Horner's chain of
/// multiplications) so that it vectorizes.
fn window_hash(window: &[u8]) -> u32 {
    let window: &[u8; BLOCK] = window.try_into().expect("one window");
    window.iter().zip(WEIGHTS).fold(0u32, |h, (&b, w)| {
        h.wrapping_add(u32::from(b).wrapping_mul(w))
    })
}

/// The hash of the window one byte on: `out` leaves it, `new` enters.
fn roll(hash: u32, out: u8, new: u8) -> u32 {
    hash.wrapping_sub(u32::from(out).wrapping_mul(WEIGHTS[0]))
        .wrapping_mul(ROLL)
        .wrapping_add(u32::from(new))
}

/// One of 32 bits chosen by the five hash bits below the bucket's.
fn presence_bit(hash: u32, shift: u32) -> u32 {
    1 << ((hash.wrapping_mul(0x9e37_79b9) >> shift.saturating_sub(5)) & 31)
}

fn bucket(hash: u32, shift: u32) -> usize {
    // Fibonacci hashing spreads the polynomial hash over the top bits.
    (hash.wrapping_mul(0x9e37_79b9) >> shift) as usize
}

pub(super) fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(super) fn push_inserts(out: &mut Vec<u8>, mut literal: &[u8]) {
    while !literal.is_empty() {
        let n = literal.len().min(MAX_INSERT);
        out.push(n as u8);
        out.extend_from_slice(&literal[..n]);
        literal = &literal[n..];
    }
}

/// Copy opcodes for `base[offset..offset + len]`, 64 KiB at most each.
pub(super) fn push_copies(out: &mut Vec<u8>, mut offset: usize, mut len: usize) {
    while len > 0 {
        let n = len.min(MAX_COPY);
        let at = out.len();
        out.push(0x80);
        let mut cmd = 0x80u8;
        for i in 0..4 {
            let b = (offset >> (8 * i)) as u8;
            if b != 0 {
                out.push(b);
                cmd |= 1 << i;
            }
        }
        // A size of 0x10000 is encoded as no size bytes.
        let size = if n == MAX_COPY { 0 } else { n };
        for i in 0..3 {
            let b = (size >> (8 * i)) as u8;
            if b != 0 {
                out.push(b);
                cmd |= 1 << (4 + i);
            }
        }
        out[at] = cmd;
        offset += n;
        len -= n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::delta::apply::apply_delta;

    use crate::testing::rng::Rng;

    fn roundtrip(base: &[u8], target: &[u8]) -> usize {
        let delta = encode_delta(base, target, usize::MAX).expect("no size limit");
        let mut out = Vec::new();
        apply_delta(base, &delta, &mut out).expect("the delta applies");
        assert!(out == target, "delta does not reproduce the target");
        delta.len()
    }

    /// A mutated copy of `base`: random inserts, deletes, replacements and
    /// moved blocks, like successive versions of a file.
    fn mutate(rng: &mut Rng, base: &[u8], edits: usize) -> Vec<u8> {
        let mut t = base.to_vec();
        for _ in 0..edits {
            let at = rng.below(t.len() + 1);
            match rng.below(4) {
                0 => {
                    let n = rng.below(40);
                    let ins = rng.bytes(n, 255);
                    t.splice(at..at, ins);
                }
                1 => {
                    let end = (at + rng.below(60)).min(t.len());
                    t.drain(at..end);
                }
                2 => {
                    let end = (at + rng.below(10)).min(t.len());
                    for b in &mut t[at..end] {
                        *b = b.wrapping_add(1);
                    }
                }
                _ => {
                    let from = rng.below(t.len() + 1);
                    let end = (from + rng.below(200)).min(t.len());
                    let block = t[from..end].to_vec();
                    t.splice(at..at, block);
                }
            }
        }
        t
    }

    #[test]
    fn a_traced_delta_is_returned_exactly_from_its_least_bound() {
        let mut rng = Rng(11);
        for round in 0..40 {
            let len = 2000 + rng.below(6000);
            let base = rng.bytes(len, 255);
            // Some targets mostly new (the scan's early stop looks at
            // more than the delta's length), some close versions.
            let target = if round % 3 == 0 {
                let mut t = rng.bytes(3000, 255);
                t.extend_from_slice(&base[..base.len() / 2]);
                t
            } else {
                let edits = 1 + rng.below(30);
                mutate(&mut rng, &base, edits)
            };
            let index = DeltaIndex::new(&base[..]);
            let traced = index.encode_traced(&target, usize::MAX).expect("no limit");
            assert!(traced.least_bound >= traced.delta.len());
            for limit in [
                traced.least_bound - 1,
                traced.least_bound,
                traced.least_bound + 1,
                traced.delta.len(),
                traced.delta.len() / 2,
            ] {
                let expected = (limit >= traced.least_bound).then(|| traced.delta.clone());
                assert_eq!(
                    index.encode(&target, limit),
                    expected,
                    "round {round} limit {limit}"
                );
                let under = index.encode_traced(&target, limit);
                assert_eq!(under.is_some(), expected.is_some());
            }
        }
    }

    #[test]
    fn edge_cases_round_trip() {
        let mut rng = Rng(7);
        let some = rng.bytes(1000, 255);
        for (base, target) in [
            (&b""[..], &b""[..]),
            (b"", b"x"),
            (b"x", b""),
            (b"abc", b"abc"),
            (&some[..], &some[..]),
            (&some[..], b""),
            (b"", &some[..]),
            (&some[..10], &some[..]),
            (&some[..], &some[500..520]),
        ] {
            roundtrip(base, target);
        }
    }

    #[test]
    fn identical_inputs_give_a_tiny_delta() {
        let mut rng = Rng(1);
        let data = rng.bytes(300_000, 255);
        // 300 KB in five 64 KiB copies: a few bytes each.
        assert!(roundtrip(&data, &data) < 40);
    }

    #[test]
    fn different_inputs_are_all_inserts() {
        let mut rng = Rng(2);
        let base = rng.bytes(5000, 255);
        let target = rng.bytes(5000, 255);
        let len = roundtrip(&base, &target);
        assert!(len <= 5000 + 5000 / 127 + 1 + 8);
    }

    #[test]
    fn max_size_is_respected() {
        let mut rng = Rng(3);
        let base = rng.bytes(5000, 255);
        let target = rng.bytes(5000, 255);
        assert!(encode_delta(&base, &target, 100).is_none());
        let d = encode_delta(&base, &base, 100).expect("small delta");
        assert!(d.len() <= 100);
    }

    #[test]
    fn random_pairs_round_trip() {
        let mut rng = Rng(0x5eed);
        for round in 0..400 {
            let len = match round % 4 {
                0 => rng.below(40),
                1 => rng.below(600),
                2 => rng.below(10_000),
                _ => rng.below(100_000),
            };
            // Small alphabets make repetitive data and long hash chains.
            let alphabet = [2u8, 4, 26, 255][rng.below(4)];
            let base = rng.bytes(len, alphabet);
            let target = match rng.below(3) {
                0 => {
                    let edits = 1 + rng.below(30);
                    mutate(&mut rng, &base, edits)
                }
                1 => {
                    let n = rng.below(len + 1);
                    rng.bytes(n, alphabet)
                }
                _ => {
                    let mut t = mutate(&mut rng, &base, 3);
                    t.reverse();
                    t
                }
            };
            let index = DeltaIndex::new(&base);
            let delta = index.encode(&target, usize::MAX).expect("no limit");
            let mut out = Vec::new();
            apply_delta(&base, &delta, &mut out).expect("applies");
            assert!(out == target, "round {round}");
            // The limit is exact: the same delta passes, one byte less fails.
            assert!(index.encode(&target, delta.len()).is_some());
            assert!(index.encode(&target, delta.len() - 1).is_none());
        }
    }

    #[test]
    fn similar_texts_give_small_deltas() {
        let mut rng = Rng(11);
        let base: Vec<u8> = (0..2000)
            .flat_map(|i| format!("line {i}: {}\n", rng.next()).into_bytes())
            .collect();
        let target = mutate(&mut rng, &base, 10);
        let len = roundtrip(&base, &target);
        assert!(len < target.len() / 20, "delta {len} of {}", target.len());
    }

    #[test]
    fn bases_over_16_mib_round_trip() {
        let mut rng = Rng(99);
        let base = rng.bytes(17 << 20, 255);
        let mut target = base[(16 << 20) + 5..].to_vec();
        target.extend_from_slice(b"a change at the end");
        target.extend_from_slice(&base[..100_000]);
        target.extend_from_slice(&base[(8 << 20)..(8 << 20) + 70_000]);
        let len = roundtrip(&base, &target);
        assert!(len < 200, "delta {len}");
    }

    #[test]
    fn real_inputs_round_trip() {
        // This crate's own sources, each against the next: real text pairs.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/pack");
        let mut files: Vec<Vec<u8>> = std::fs::read_dir(dir)
            .expect("src/pack exists")
            .filter_map(|e| std::fs::read(e.ok()?.path()).ok())
            .collect();
        files.sort();
        for pair in files.windows(2) {
            roundtrip(&pair[0], &pair[1]);
            roundtrip(&pair[1], &pair[0]);
            let mut rng = Rng(pair[0].len() as u64 + 1);
            let edited = mutate(&mut rng, &pair[0], 5);
            assert!(roundtrip(&pair[0], &edited) < pair[0].len() / 4 + 64);
        }
    }

    /// The entries of the bucket `fingerprint` falls in.
    fn bucket_of<B: AsRef<[u8]>>(index: &DeltaIndex<B>, fingerprint: u32) -> &[Entry] {
        let h = bucket(fingerprint, index.shift);
        &index.entries[index.starts[h] as usize..index.starts[h + 1] as usize]
    }

    /// Bases that make the index work: random, few-letter, all zero,
    /// periodic (over-full buckets that runs do not collapse), text lines,
    /// random with long runs; from empty to past a 64 KiB copy.
    fn some_base(rng: &mut Rng) -> Vec<u8> {
        let len = match rng.below(5) {
            0 => rng.below(BLOCK),
            1 => rng.below(600),
            2 => rng.below(10_000),
            _ => rng.below(80_000),
        };
        match rng.below(6) {
            0 => rng.bytes(len, 255),
            1 => {
                let alphabet = [2, 4][rng.below(2)];
                rng.bytes(len, alphabet)
            }
            2 => vec![0; len],
            3 => {
                let period = [1, 3, 16, 32, 48, 100][rng.below(6)];
                let unit = rng.bytes(period, 255);
                unit.iter().copied().cycle().take(len).collect()
            }
            4 => (0..)
                .flat_map(|i| format!("\tline {i}: {}\n", rng.below(50)).into_bytes())
                .take(len)
                .collect(),
            _ => {
                let mut b = rng.bytes(len, 255);
                for _ in 0..3 {
                    let at = rng.below(len + 1);
                    let end = (at + rng.below(6000)).min(len);
                    b[at..end].fill(b'x');
                }
                b
            }
        }
    }

    /// A target made from `base` by one kind of change: small edits,
    /// a long run inserted, a chunk of the base repeated, a prefix or
    /// suffix, unrelated bytes, or a target shorter than a block.
    fn some_target(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
        match rng.below(7) {
            0 => {
                let edits = 1 + rng.below(20);
                mutate(rng, base, edits)
            }
            1 => {
                let mut t = base.to_vec();
                let at = rng.below(t.len() + 1);
                let run = vec![rng.below(256) as u8; rng.below(9000)];
                t.splice(at..at, run);
                t
            }
            2 => {
                let from = rng.below(base.len() + 1);
                let end = (from + rng.below(300)).min(base.len());
                let times = rng.below(40);
                let mut t = base.to_vec();
                let at = rng.below(t.len() + 1);
                t.splice(at..at, base[from..end].repeat(times));
                t
            }
            3 => base[..rng.below(base.len() + 1)].to_vec(),
            4 => base[rng.below(base.len() + 1)..].to_vec(),
            5 => {
                let n = rng.below(base.len() + 100);
                rng.bytes(n, 255)
            }
            _ => {
                let n = rng.below(BLOCK);
                rng.bytes(n, 4)
            }
        }
    }

    /// Runs `check` on `rounds` pairs of [`some_base`] and [`some_target`],
    /// with the base's index and the generator.
    fn for_cases(
        seed: u64,
        rounds: usize,
        mut check: impl FnMut(usize, &[u8], &[u8], &DeltaIndex<&[u8]>, &mut Rng),
    ) {
        let mut rng = Rng(seed);
        for round in 0..rounds {
            let base = some_base(&mut rng);
            let target = some_target(&mut rng, &base);
            let index = DeltaIndex::new(&base[..]);
            check(round, &base, &target, &index, &mut rng);
        }
    }

    /// The blocks of `base` that are not repeats of the block before.
    fn filed_blocks(base: &[u8]) -> usize {
        let blocks: Vec<&[u8]> = base.chunks_exact(BLOCK).collect();
        blocks.len() - blocks.windows(2).filter(|w| w[0] == w[1]).count()
    }

    #[test]
    fn the_index_files_blocks_by_bucket_in_offset_order() {
        let mut rng = Rng(0x1dec5);
        for round in 0..60 {
            let base = some_base(&mut rng);
            let index = DeltaIndex::new(&base);
            let blocks = base.len() / BLOCK;
            let buckets = index.starts.len() - 1;
            // A quarter of the blocks, up to a power of two, at least 16.
            assert_eq!(
                buckets,
                (blocks / 4).next_power_of_two().max(16),
                "round {round}"
            );
            assert_eq!(index.starts[0], 0);
            assert_eq!(index.starts[buckets] as usize, index.entries.len());
            if index
                .starts
                .windows(2)
                .all(|w| w[1] - w[0] < HASH_LIMIT as u32)
            {
                assert_eq!(index.entries.len(), filed_blocks(&base), "round {round}");
            }
            for h in 0..buckets {
                let filed = &index.entries[index.starts[h] as usize..index.starts[h + 1] as usize];
                assert!(filed.len() <= HASH_LIMIT, "round {round}: bucket {h}");
                assert!(filed.windows(2).all(|w| w[0].offset < w[1].offset));
                for e in filed {
                    let off = e.offset as usize;
                    assert_eq!(off % BLOCK, 0);
                    assert_eq!(e.fingerprint, window_hash(&base[off..off + BLOCK]));
                    assert_eq!(bucket(e.fingerprint, index.shift), h);
                    assert_ne!(
                        index.present[h] & presence_bit(e.fingerprint, index.shift),
                        0
                    );
                }
            }
        }
    }

    #[test]
    fn runs_of_identical_blocks_are_filed_once() {
        let index = DeltaIndex::new(vec![0u8; 100_000]);
        assert_eq!(index.entries.len(), 1);
        assert_eq!(index.entries[0].offset, 0);
        // The one entry still finds the whole run.
        let target = vec![0u8; 70_000];
        let delta = index.encode(&target, usize::MAX).expect("no limit");
        assert!(delta.len() < 20, "{} bytes", delta.len());
    }

    #[test]
    fn over_full_buckets_keep_64_entries_spread_over_the_base() {
        // Two blocks that alternate: runs do not collapse them, so each
        // lands 3125 times in one bucket.
        let mut rng = Rng(64);
        let (a, b) = (rng.bytes(BLOCK, 255), rng.bytes(BLOCK, 255));
        let base: Vec<u8> = [a.clone(), b].concat().repeat(3125);
        let index = DeltaIndex::new(&base);
        let filed = bucket_of(&index, window_hash(&a));
        let offsets: Vec<usize> = filed
            .iter()
            .filter(|e| e.fingerprint == window_hash(&a))
            .map(|e| e.offset as usize)
            .collect();
        assert_eq!(offsets.len(), HASH_LIMIT);
        assert_eq!(offsets[0], 0, "the first occurrence is kept");
        // Even strides: 3125 / 64 is 48.8 occurrences, 32 bytes apart.
        for w in offsets.windows(2) {
            let gap = (w[1] - w[0]) / (2 * BLOCK);
            assert!((48..=49).contains(&gap), "gap of {gap} occurrences");
        }
        assert!(*offsets.last().expect("64") >= base.len() - 50 * 2 * BLOCK);
    }

    #[test]
    fn a_match_of_4096_bytes_ends_the_bucket_scan() {
        let mut rng = Rng(4096);
        let x = rng.bytes(10_000, 255);
        let junk = rng.bytes(BLOCK, 255);
        let fingerprint = window_hash(&x[..BLOCK]);
        // The first candidate matches 4977 bytes on, good enough: the longer
        // match at the second is not looked for.
        let base = [&x[..4992], &junk, &x].concat();
        // (A match runs on from the window's last byte, 15.)
        let index = DeltaIndex::new(&base);
        assert_eq!(index.longest_match(&x, 15, fingerprint), (15, 4977));
        // Under 4096 bytes, the scan goes on to the longer one.
        let base = [&x[..3008], &junk, &x].concat();
        let index = DeltaIndex::new(&base);
        assert_eq!(index.longest_match(&x, 15, fingerprint), (3039, 9985));
        for base in [
            [&x[..4992], &junk, &x].concat(),
            [&x[..3008], &junk, &x].concat(),
        ] {
            roundtrip(&base, &x);
        }
    }

    #[test]
    fn the_bucket_scan_cutoffs_lose_no_match() {
        // Against a scan of the whole bucket (with only the good-enough
        // stop), the cutoff on the rest of the base finds the same match.
        for_cases(0xc0ff, 80, |round, base, target, index, rng| {
            for pos in (BLOCK - 1..target.len()).step_by(1 + rng.below(7)) {
                let fingerprint = window_hash(&target[pos + 1 - BLOCK..=pos]);
                let mut whole = (0, 0);
                for e in bucket_of(index, fingerprint) {
                    // A match runs on from the block's last byte.
                    let off = e.offset as usize + BLOCK - 1;
                    let len = common_prefix(&base[off..], &target[pos..]);
                    if e.fingerprint == fingerprint && len > whole.1 {
                        whole = (off, len);
                        if len >= GOOD_ENOUGH {
                            break;
                        }
                    }
                }
                let found = index.longest_match(target, pos, fingerprint);
                assert_eq!(found, whole, "round {round} at {pos}");
            }
        });
    }

    #[test]
    fn edited_inputs_round_trip_and_keep_the_size_bound() {
        for_cases(0xde17a, 300, |round, base, target, index, rng| {
            let delta = index.encode(target, usize::MAX).expect("no limit");
            let mut out = Vec::new();
            apply_delta(base, &delta, &mut out).expect("the delta applies");
            assert!(out == target, "round {round}");
            // A bound gives this same delta if it fits, else nothing; and
            // nothing only if it does not fit, unless a bucket was culled
            // (the early stop on literal bytes can then be wrong).
            let culled = index.entries.len() < filed_blocks(base);
            for limit in [0, delta.len() - 1, delta.len(), rng.below(delta.len() * 2)] {
                match index.encode(target, limit) {
                    Some(d) => assert!(d == delta && d.len() <= limit, "round {round}"),
                    None => assert!(culled || delta.len() > limit, "round {round}: {limit}"),
                }
            }
        });
    }

    #[test]
    fn long_matches_become_few_copies() {
        // 200 KB shared around an edit: copies of 64 KiB, not one per
        // good-enough match.
        let mut rng = Rng(200);
        let base = rng.bytes(200_000, 255);
        let mut target = base.clone();
        target.splice(100_000..100_010, *b"an edit in the middle");
        let len = roundtrip(&base, &target);
        assert!(len < 80, "delta {len}");
    }
}
