//! Deltas between the SHA-256 forms of two trees, found by lining up the
//! entries of their SHA-1 forms instead of diffing bytes.
//!
//! Translation changes only the object id of each entry (20 -> 32 bytes),
//! so an entry that is byte-identical in the two SHA-1 trees is
//! byte-identical in the two SHA-256 trees, at an offset that grows by 12
//! bytes per entry before it. Walking both entry lists in tree order gives
//! the copies a byte diff would find (runs of unchanged entries, and the
//! `mode name` part of an entry whose id changed) at the cost of a merge:
//! no index of the base is built and the base never has to be translated,
//! which is most of what re-diffing the translated trees used to cost.
//! Bytes that are not copies (new entries, new ids) come from the target's
//! SHA-256 form, which the caller has anyway (it named the object).

use std::cmp::Ordering;

use super::encode::{push_copies, push_inserts, push_varint};
use crate::bytes::{common_prefix, common_suffix};
use crate::object::{Entry, entry_at, tree_order};

/// A shared `mode SP name NUL` shorter than this goes in as literal bytes:
/// a copy opcode costs up to 5 bytes, and splitting the literal run costs
/// another opcode.
const MIN_PREFIX_COPY: usize = 12;

/// The delta turning the SHA-256 form of `base_sha1` into `target_sha256`,
/// where `target_sha256` is the SHA-256 form of `target_sha1` (both trees'
/// ids are `from_len` bytes wide in the SHA-1 forms, `to_len` in the
/// SHA-256 ones). `None` when it would be longer than `max_size`, or when a
/// body does not parse as a tree or the target's two forms disagree in
/// length (the caller then stores the object whole).
pub fn tree_delta(
    base_sha1: &[u8],
    target_sha1: &[u8],
    target_sha256: &[u8],
    from_len: usize,
    to_len: usize,
    max_size: usize,
) -> Option<Vec<u8>> {
    // Entries wholly inside the two bodies' common prefix are the same
    // entries at the same places (most of a tree is its previous version):
    // parsed once, without per-entry compares, and copied as one run. The
    // last of them stays in the lists below, as a new entry's neighbour.
    let (skip, skip_end) =
        leading_entries(target_sha1, common_prefix(base_sha1, target_sha1), from_len);
    let base = entries(base_sha1, skip_end, from_len)?;
    let target = entries(target_sha1, skip_end, from_len)?;
    let grow = to_len as isize - from_len as isize;
    // The SHA-256 offset of SHA-1 offset `start`, after `index` entries of
    // the lists below (and the `skip` before them).
    let translated =
        |start: usize, index: usize| (start as isize + grow * (skip + index) as isize) as usize;
    if translated(target_sha1.len(), target.len()) != target_sha256.len() {
        return None;
    }
    // Likewise the entries wholly inside the common suffix, where the two
    // lists line up from the end: the walk below stops before them, and
    // they are one copy after it (the walk would copy each of them, and
    // adjacent copies merge).
    let (tail, base_tail) = trailing_entries(base_sha1, &base, target_sha1, &target);
    let mut ops = Ops::new(target_sha256, max_size);
    push_varint(&mut ops.out, translated(base_sha1.len(), base.len()) as u64);
    push_varint(&mut ops.out, target_sha256.len() as u64);
    if skip_end > 0 {
        ops.copy(0, translated(skip_end, 0))?;
    }
    let mut i = 0;
    for t in &target[..tail] {
        // Skip base entries that sort before this one (deleted).
        while i < base.len() && tree_order(base_sha1, &base[i], target_sha1, t) == Ordering::Less {
            i += 1;
        }
        let same_name = i < base.len() && base[i].name(base_sha1) == t.name(target_sha1);
        let t_len = ((t.end - t.start) as isize + grow) as usize;
        if same_name && base_sha1[base[i].start..base[i].end] == target_sha1[t.start..t.end] {
            ops.copy(translated(base[i].start, i), t_len)?;
            i += 1;
            continue;
        }
        // A changed or new entry: copy what it shares with the entry of the
        // same name, or else with its neighbours in the base (a new file
        // often shares most of its name with the one before or after it).
        let candidates = if same_name {
            i..i + 1
        } else {
            i.saturating_sub(1)..(i + 1).min(base.len())
        };
        let mut best: Option<(usize, usize)> = None; // (base index, prefix)
        for c in candidates {
            let b = &base[c];
            let prefix = common_prefix(&base_sha1[b.start..=b.nul], &target_sha1[t.start..=t.nul]);
            if best.is_none_or(|(_, p)| prefix > p) {
                best = Some((c, prefix));
            }
        }
        let same_id = |b: &Entry| base_sha1[b.nul + 1..b.end] == target_sha1[t.nul + 1..t.end];
        match best {
            // Only the mode changed: the name and id are one copy.
            Some((c, _)) if same_name && same_id(&base[c]) => {
                let b = &base[c];
                ops.literal(t.space - t.start);
                let tail = ((b.end - b.space) as isize + grow) as usize;
                ops.copy(translated(b.space, c), tail)?;
            }
            Some((c, prefix)) if prefix >= MIN_PREFIX_COPY => {
                ops.copy(translated(base[c].start, c), prefix)?;
                ops.literal(t_len - prefix);
            }
            _ => ops.literal(t_len),
        }
        if same_name {
            i += 1;
        }
    }
    if let Some(&Entry { start, .. }) = target.get(tail) {
        let base_start = base[base_tail].start;
        let len = translated(target_sha1.len(), target.len()) - translated(start, tail);
        ops.copy(translated(base_start, base_tail), len)?;
    }
    ops.finish()
}

/// Where the entries both lists end with, byte for byte and at the same
/// distance from the end of their bodies, begin: (target index, base
/// index); (`target.len()`, `base.len()`) when there are none.
fn trailing_entries(
    base_sha1: &[u8],
    base: &[Entry],
    target_sha1: &[u8],
    target: &[Entry],
) -> (usize, usize) {
    let none = (target.len(), base.len());
    let suffix = common_suffix(base_sha1, target_sha1);
    // The first target entry that starts inside the suffix, and the base
    // entry at the same distance from the end, if the base has one there.
    let tail = target.partition_point(|e| e.start < target_sha1.len() - suffix);
    let Some(t) = target.get(tail) else {
        return none;
    };
    let from_end = target_sha1.len() - t.start;
    let Some(want) = base_sha1.len().checked_sub(from_end) else {
        return none;
    };
    match base.binary_search_by_key(&want, |e| e.start) {
        // The same bytes from there to the end parse into the same entries.
        Ok(base_tail) if base.len() - base_tail == target.len() - tail => (tail, base_tail),
        _ => none,
    }
}

/// Of the entries of `body` that end within its first `within` bytes, how
/// many come before the last one, and where the last one starts (0, 0 when
/// there are none). Only a hint: a malformed tree just ends the count.
fn leading_entries(body: &[u8], within: usize, id_len: usize) -> (usize, usize) {
    let prefix = &body[..within];
    let (mut count, mut last_start, mut pos) = (0usize, 0, 0);
    while let Some(entry) = entry_at(prefix, pos, id_len) {
        count += 1;
        last_start = pos;
        pos = entry.end;
    }
    (count.saturating_sub(1), last_start)
}

/// The entries of `body` from offset `pos`, an entry's start, on.
fn entries(body: &[u8], mut pos: usize, id_len: usize) -> Option<Vec<Entry>> {
    let mut out = Vec::with_capacity((body.len() - pos) / (id_len + 16) + 1);
    while pos < body.len() {
        let entry = entry_at(body, pos, id_len)?;
        pos = entry.end;
        out.push(entry);
    }
    Some(out)
}

/// The delta's opcodes, built front to back over the target: adjacent
/// copies merge into one, everything between copies is literal.
struct Ops<'a> {
    out: Vec<u8>,
    target: &'a [u8],
    max_size: usize,
    /// Target bytes covered so far.
    pos: usize,
    /// Start of the literal run that ends at `pos`.
    literal_start: usize,
    /// The copy before that literal run, not yet written.
    pending: Option<(usize, usize)>,
}

impl<'a> Ops<'a> {
    fn new(target: &'a [u8], max_size: usize) -> Self {
        Ops {
            out: Vec::with_capacity((target.len() / 8 + 16).min(max_size.saturating_add(1))),
            target,
            max_size,
            pos: 0,
            literal_start: 0,
            pending: None,
        }
    }

    fn literal(&mut self, len: usize) {
        self.pos += len;
    }

    fn copy(&mut self, offset: usize, len: usize) -> Option<()> {
        let adjacent = self.literal_start == self.pos;
        match self.pending {
            Some((at, n)) if adjacent && at + n == offset => {
                self.pending = Some((at, n + len));
                self.pos += len;
                self.literal_start = self.pos;
                return Some(());
            }
            _ => self.flush()?,
        }
        self.pending = Some((offset, len));
        self.pos += len;
        self.literal_start = self.pos;
        Some(())
    }

    /// Writes the pending copy and the literal run after it.
    fn flush(&mut self) -> Option<()> {
        if let Some((at, n)) = self.pending.take() {
            push_copies(&mut self.out, at, n);
        }
        push_inserts(&mut self.out, &self.target[self.literal_start..self.pos]);
        self.literal_start = self.pos;
        (self.out.len() <= self.max_size).then_some(())
    }

    fn finish(mut self) -> Option<Vec<u8>> {
        debug_assert_eq!(self.pos, self.target.len());
        self.flush()?;
        Some(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::delta::apply::apply_delta;
    use crate::pack::delta::encode::encode_delta;

    use crate::testing::random_trees::{E, body, edit, random_tree};
    use crate::testing::rng::Rng;

    fn check(base: &[E], target: &[E]) -> (usize, usize) {
        let (b1, t1) = (body(base, 20), body(target, 20));
        let (b2, t2) = (body(base, 32), body(target, 32));
        let delta = tree_delta(&b1, &t1, &t2, 20, 32, usize::MAX).expect("trees parse");
        let mut out = Vec::new();
        apply_delta(&b2, &delta, &mut out).expect("the delta applies");
        assert!(out == t2, "delta does not reproduce the SHA-256 target");
        let bytes = encode_delta(&b2, &t2, usize::MAX).expect("no limit").len();
        (delta.len(), bytes)
    }

    #[test]
    fn leading_entries_stop_before_the_first_difference() {
        let tree = body(
            &[
                E {
                    mode: "100644",
                    name: b"a".to_vec(),
                    id: 1,
                },
                E {
                    mode: "100644",
                    name: b"b".to_vec(),
                    id: 2,
                },
                E {
                    mode: "100644",
                    name: b"c".to_vec(),
                    id: 3,
                },
            ],
            20,
        );
        let entry = tree.len() / 3;
        assert_eq!(leading_entries(&tree, 0, 20), (0, 0));
        assert_eq!(leading_entries(&tree, entry - 1, 20), (0, 0));
        assert_eq!(leading_entries(&tree, entry, 20), (0, 0));
        assert_eq!(leading_entries(&tree, 2 * entry + 5, 20), (1, entry));
        assert_eq!(leading_entries(&tree, tree.len(), 20), (2, 2 * entry));
    }

    #[test]
    fn edited_trees_round_trip_and_are_no_larger_than_a_byte_diff() {
        let mut rng = Rng(11);
        let (mut ours, mut bytes) = (0, 0);
        for round in 0..300 {
            let base = random_tree(&mut rng, 1 + round % 120);
            let edits = rng.below(6);
            let target = edit(&mut rng, &base, edits);
            let (a, b) = check(&base, &target);
            ours += a;
            bytes += b;
        }
        assert!(ours <= bytes + bytes / 20, "{ours} vs {bytes}");
    }

    #[test]
    fn edge_cases_round_trip() {
        let mut rng = Rng(3);
        let some = random_tree(&mut rng, 50);
        let other = random_tree(&mut rng, 40);
        for (base, target) in [
            (vec![], vec![]),
            (vec![], some.clone()),
            (some.clone(), vec![]),
            (some.clone(), some.clone()),
            (some.clone(), other.clone()),
            (some[..1].to_vec(), some.clone()),
            (some.clone(), some[20..21].to_vec()),
        ] {
            check(&base, &target);
        }
    }

    #[test]
    fn out_of_order_and_duplicate_entries_still_round_trip() {
        let mut rng = Rng(5);
        let mut base = random_tree(&mut rng, 30);
        base.reverse();
        let mut target = base.clone();
        target.push(target[3].clone());
        target.swap(0, 10);
        check(&base, &target);
        // A directory sorts as if its name ended in '/': "a-b" < "a/".
        let e = |mode, name: &str| E {
            mode,
            name: name.as_bytes().to_vec(),
            id: 1,
        };
        let base = vec![e("100644", "a-b"), e("40000", "a"), e("100644", "a0")];
        let target = vec![e("100644", "a-b"), e("40000", "a"), e("100644", "a0")];
        let (ours, _) = check(&base, &target);
        assert!(ours < 10, "identical trees are one copy: {ours} bytes");
    }

    #[test]
    fn a_limit_or_a_malformed_body_gives_none() {
        let mut rng = Rng(9);
        let base = body(&random_tree(&mut rng, 40), 20);
        let other = random_tree(&mut rng, 40);
        let (t1, t2) = (body(&other, 20), body(&other, 32));
        assert!(tree_delta(&base, &t1, &t2, 20, 32, 100).is_none());
        assert!(tree_delta(&base[..base.len() - 1], &t1, &t2, 20, 32, usize::MAX).is_none());
        assert!(tree_delta(&base, &t1, &t2[1..], 20, 32, usize::MAX).is_none());
    }
}
