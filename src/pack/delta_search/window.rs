//! The sliding-window delta search of `git pack-objects` (`find_deltas`,
//! `try_delta` and `type_size_sort` in `builtin/pack-objects.c`).
//!
//! Objects of one type are sorted by name hash, then by size, largest
//! first, then by their place in history; each is diffed against the
//! `window` objects kept before it, newest first, and keeps the smallest
//! delta found, provided the base's chain is shorter than `depth`. As in
//! git, the base chosen then moves to the newest slot (the next version
//! of the same file will likely want it too), and an object whose chain
//! is `depth` long is not kept (it can be no base). Since a base always
//! comes earlier in the sorted order, each object's depth is final when
//! it is decided, and chains can never form cycles. Only the window's
//! bodies and their indexes are held in memory; the caller supplies
//! bodies on demand and receives each chosen delta through a sink, in
//! sorted order.

use std::cmp::Reverse;
use std::collections::VecDeque;

use rayon::prelude::*;

use super::sketch::Sketch;
use crate::pack::delta::encode::{DeltaIndex, TracedDelta};

/// One object to place: `name_hash` of its path (`name_hash.rs`; 0 when
/// unknown), `size` its body length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowObject {
    pub name_hash: u32,
    pub size: u64,
}

/// The window and chain limits (`--window`, `--depth`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowOptions {
    pub window: usize,
    pub depth: u32,
    /// Bytes of bodies the window may hold (git's `--window-memory`; their
    /// indexes add about half as much again); the newest is always kept.
    pub memory: usize,
    /// Width of the object names, for git's `trg_size / 2 - rawsz` limit.
    pub id_len: usize,
    /// Which of the window's objects each target is diffed against.
    pub tries: Tries,
}

#[cfg(test)]
impl WindowOptions {
    /// A window of `window` objects and chains of `depth`, without a
    /// memory limit, every candidate tried (SHA-256 names): what the
    /// searches' unit tests run under.
    pub(crate) fn unbounded(window: usize, depth: u32) -> Self {
        WindowOptions {
            window,
            depth,
            memory: usize::MAX,
            id_len: 32,
            tries: Tries::Every,
        }
    }
}

/// Which candidates of the window a target is diffed against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tries {
    /// Every one, as git does: the cost grows with the window.
    Every,
    /// The `newest` ones, where most bases are found (the previous
    /// version of the same file, the base the object before chose), and
    /// among the others the `resembling` ones whose [`Sketch`] shares the
    /// most with the target's: the cost of a try is paid only where a
    /// delta is likely, so a wide window costs little more than a narrow
    /// one. A target of [`ENOUGH_MIN`] or more whose newest tries already
    /// gave a delta of at most 1/[`ENOUGH`] of its length skips the ranked
    /// ones (each would read the whole target to save a few bytes at most).
    Ranked { newest: usize, resembling: usize },
}

/// What the search chose for one object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Choice {
    /// Index (into the input list) of the delta base, if any.
    pub base: Option<u32>,
    /// Length of the delta chain ending here (0 for a whole object).
    pub depth: u32,
}

/// Objects smaller than this are neither deltified nor used as bases (git's
/// `prepare_pack`: a delta of so few bytes saves nothing).
pub const MIN_SIZE: usize = 50;

/// Targets at least this long are diffed against several candidates at
/// once, on the thread pool: a run of large versions of one file is one
/// piece of the search (one window), which would otherwise keep a single
/// thread busy while the others wait. Below it, a try costs less than
/// handing it to another thread.
const SIDE_BY_SIDE_MIN: usize = 64 << 10;

/// Most tries diffed at once (one per thread of the pool, at most this
/// many): more keep more threads busy, but lose more of the early stops a
/// better delta found first would have allowed. (The choice does not
/// depend on it.)
const SIDE_BY_SIDE: usize = 8;

/// A delta at most 1/`ENOUGH` of its target's length, found among the
/// newest tries, spares the target its ranked ones.
const ENOUGH: usize = 1024;
/// Targets shorter than this try every candidate chosen: wide trees (a
/// directory of a thousand files) have deltas of a few dozen bytes, and
/// the best of their tries is worth the cost of a scan.
const ENOUGH_MIN: usize = 256 << 10;

/// One candidate base of the window: its body, indexed on first use.
struct Slot<B: AsRef<[u8]>> {
    at: u32,
    depth: u32,
    body: Option<B>,
    index: Option<DeltaIndex<B>>,
    len: usize,
    sketch: Option<Sketch>,
}

impl<B: AsRef<[u8]>> Slot<B> {
    fn index(&mut self) -> &DeltaIndex<B> {
        if self.index.is_none() {
            let body = self
                .body
                .take()
                .expect("a slot holds its body until indexed");
            self.index = Some(DeltaIndex::new(body));
        }
        self.index.as_ref().expect("built above")
    }

    fn sketch(&mut self) -> &Sketch {
        if self.sketch.is_none() {
            let bytes = match (&self.body, &self.index) {
                (Some(body), _) => body.as_ref(),
                (None, Some(index)) => index.base(),
                (None, None) => unreachable!("a slot holds its body or its index"),
            };
            self.sketch = Some(Sketch::of(bytes));
        }
        self.sketch.as_ref().expect("computed above")
    }
}

/// The sliding window of one search: the last `window` objects kept (and
/// at most `memory` bytes of them), newest last, each indexed only when it
/// is first tried as a base. The caller decides the order objects arrive
/// in and which ones look for a base.
pub struct Window<B: AsRef<[u8]>> {
    opts: WindowOptions,
    slots: VecDeque<Slot<B>>,
    bytes: usize,
    /// Scratch lists of [`Window::find`], kept to reuse their room.
    tries: Vec<usize>,
    scored: Vec<(Reverse<u32>, usize)>,
}

/// [`Found::distance`] of a delta against a base the window does not hold.
pub const NOT_IN_WINDOW: usize = usize::MAX;

/// A delta found by [`Window::find`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The base: the `at` it was pushed with.
    pub base: u32,
    /// The length of the chain the delta makes.
    pub depth: u32,
    pub delta: Vec<u8>,
    /// Where the base sat in the window: 0 for the newest slot.
    pub distance: usize,
}

impl<B: AsRef<[u8]> + Send + Sync> Window<B> {
    pub fn new(opts: WindowOptions) -> Self {
        Window {
            opts,
            slots: VecDeque::with_capacity(opts.window.min(4096) + 1),
            bytes: 0,
            tries: Vec::new(),
            scored: Vec::new(),
        }
    }

    /// The best delta of `target` against the window, newest candidates
    /// first. `best` is a delta already known (e.g. against the source
    /// pack's base): a candidate must beat it, which bounds every try.
    pub fn find(&mut self, target: &[u8], best: Option<Found>) -> Option<Found> {
        self.find_sketched(target, None, best)
    }

    /// [`Window::find`], given the target's [`Sketch`] if the caller has
    /// it (a body's sketch costs a pass over it; a caller that searches
    /// from many windows computes it once).
    pub fn find_sketched(
        &mut self,
        target: &[u8],
        sketch: Option<&Sketch>,
        best: Option<Found>,
    ) -> Option<Found> {
        let mut best = best;
        if self.opts.depth == 0 || target.len() < MIN_SIZE {
            return best;
        }
        let mut tries = std::mem::take(&mut self.tries);
        self.choose_tries(target, sketch, &mut tries);
        // Past the newest tries, a delta already short enough ends the
        // search (with `Tries::Every`, git's search, none does).
        let skippable = match self.opts.tries {
            Tries::Ranked { newest, .. } => newest.max(1),
            Tries::Every => tries.len(),
        };
        if target.len() >= SIDE_BY_SIDE_MIN && tries.len() > 1 && rayon::current_num_threads() > 1 {
            // The nearest alone first: it is the most often chosen, and
            // bounds the others. Batches do not straddle `skippable`.
            let (nearest, rest) = tries.split_at(1);
            let (newest, ranked) = rest.split_at(skippable.min(tries.len()) - 1);
            let width = rayon::current_num_threads().min(SIDE_BY_SIDE);
            let batches = std::iter::once(nearest)
                .chain(newest.chunks(width))
                .map(|batch| (batch, false))
                .chain(ranked.chunks(width).map(|batch| (batch, true)));
            for (batch, ranked) in batches {
                if ranked && enough(best.as_ref(), target) {
                    break;
                }
                best = self.try_side_by_side(target, batch, best, ranked);
            }
        } else {
            for (tried, &distance) in tries.iter().enumerate() {
                if tried >= skippable && enough(best.as_ref(), target) {
                    break;
                }
                best = self.try_one(target, distance, best);
            }
        }
        self.tries = tries;
        best
    }

    /// Diffs `target` against the slot `distance` from the newest, keeping
    /// the delta if it beats `best` (git's `try_delta`).
    fn try_one(&mut self, target: &[u8], distance: usize, best: Option<Found>) -> Option<Found> {
        let opts = self.opts;
        let newest = self.slots.len() - 1;
        let slot = &mut self.slots[newest - distance];
        let Some(limit) = size_limit(slot, target, best.as_ref(), opts) else {
            return best;
        };
        match slot.index().encode(target, limit) {
            Some(delta) if beats(delta.len(), slot.depth, best.as_ref()) => Some(Found {
                base: slot.at,
                depth: slot.depth + 1,
                delta,
                distance,
            }),
            _ => best,
        }
    }

    /// The tries at `distances`, diffed side by side on the thread pool,
    /// each under the limit `best` sets before any of them; then chosen
    /// among in order, as [`Window::try_one`] one after the other would:
    /// each scan says the least limit it passes under, so the tighter one
    /// an earlier try of the batch sets is applied afterwards, exactly.
    /// (A delta within its own limit never loosens a later try's limit;
    /// should one, a scan that gave up under the tighter first limit is
    /// diffed again rather than assumed to fail.) The choice is thus the
    /// same whatever the thread count; the cost is that a try cannot stop
    /// early at a limit an earlier one of its batch set. `ranked`: the
    /// tries are ranked ones, which a delta short [`enough`] ends.
    fn try_side_by_side(
        &mut self,
        target: &[u8],
        distances: &[usize],
        best: Option<Found>,
        ranked: bool,
    ) -> Option<Found> {
        let opts = self.opts;
        let newest = self.slots.len() - 1;
        let first = best.as_ref();
        let mut slots: Vec<(usize, &mut Slot<B>)> = self
            .slots
            .iter_mut()
            .rev()
            .enumerate()
            .filter(|(distance, _)| distances.contains(distance))
            .collect();
        let scanned: Vec<(usize, Option<usize>, Option<TracedDelta>)> = slots
            .par_iter_mut()
            .map(|(distance, slot)| {
                let limit = size_limit(slot, target, first, opts);
                let traced = limit.and_then(|limit| slot.index().encode_traced(target, limit));
                (*distance, limit, traced)
            })
            .collect();
        drop(slots);
        let mut best = best;
        // `distances` is nearest first, as `slots` (the window's order).
        for (distance, scanned_under, traced) in scanned {
            if ranked && enough(best.as_ref(), target) {
                break;
            }
            let slot = &mut self.slots[newest - distance];
            let Some(limit) = size_limit(slot, target, best.as_ref(), opts) else {
                continue;
            };
            let delta = match traced {
                Some(traced) => (traced.least_bound <= limit).then_some(traced.delta),
                None if scanned_under.is_some_and(|under| limit <= under) => None,
                // Not scanned, or given up under a tighter limit.
                None => slot.index().encode(target, limit),
            };
            if let Some(delta) = delta.filter(|d| beats(d.len(), slot.depth, best.as_ref())) {
                best = Some(Found {
                    base: slot.at,
                    depth: slot.depth + 1,
                    delta,
                    distance,
                });
            }
        }
        best
    }

    /// The slots `target` is diffed against, by distance from the newest,
    /// nearest first: every slot, or with [`Tries::Ranked`] the newest few
    /// and the most resembling of the others.
    fn choose_tries(&mut self, target: &[u8], given: Option<&Sketch>, tries: &mut Vec<usize>) {
        tries.clear();
        let n = self.slots.len();
        let (newest, resembling) = match self.opts.tries {
            Tries::Every => (n, 0),
            Tries::Ranked { newest, resembling } => (newest.min(n), resembling),
        };
        tries.extend(0..newest);
        if n == newest || resembling == 0 {
            return;
        }
        let own;
        let sketch = match given {
            Some(sketch) => sketch,
            None => {
                own = Sketch::of(target);
                &own
            }
        };
        let depth = self.opts.depth;
        let mut scored = std::mem::take(&mut self.scored);
        scored.clear();
        for (distance, slot) in self.slots.iter_mut().rev().enumerate().skip(newest) {
            if slot.depth < depth {
                let score = slot.sketch().resemblance(sketch);
                if score > 0 {
                    scored.push((Reverse(score), distance));
                }
            }
        }
        // The best scores, the nearer first among equals; then tried
        // nearest first, as the window's own order.
        if scored.len() > resembling {
            scored.select_nth_unstable(resembling - 1);
            scored.truncate(resembling);
        }
        scored.sort_unstable_by_key(|&(_, distance)| distance);
        tries.extend(scored.iter().map(|&(_, distance)| distance));
        self.scored = scored;
    }

    /// Adds `body` (object `at`, whose chain is `depth` long) as the newest
    /// candidate, dropping the oldest beyond the window's limits. As git's
    /// `find_deltas`:
    /// * an object whose chain is already `depth` long can be no base: it
    ///   is not kept;
    /// * `base`, the window's object `at` was just made a delta of, moves
    ///   to the newest slot, after `at`: a base chosen once is likely
    ///   chosen again (the next version of the same file), and so stays
    ///   longest.
    pub fn push(&mut self, at: u32, depth: u32, body: B, base: Option<u32>) {
        self.push_sketched(at, depth, body, base, None);
    }

    /// [`Window::push`], with the body's [`Sketch`] if the caller has it
    /// (else it is computed when first needed).
    pub fn push_sketched(
        &mut self,
        at: u32,
        depth: u32,
        body: B,
        base: Option<u32>,
        sketch: Option<Sketch>,
    ) {
        let len = body.as_ref().len();
        if self.opts.window == 0 || len < MIN_SIZE || depth >= self.opts.depth {
            return;
        }
        let moved = base
            .and_then(|b| self.slots.iter().rposition(|s| s.at == b))
            .and_then(|p| self.slots.remove(p));
        self.slots.push_back(Slot {
            at,
            depth,
            body: Some(body),
            index: None,
            len,
            sketch,
        });
        self.bytes += len;
        self.slots.extend(moved);
        while self.slots.len() > self.opts.window
            || (self.bytes > self.opts.memory && self.slots.len() > 1)
        {
            let old = self.slots.pop_front().expect("not empty");
            self.bytes -= old.len;
        }
    }

    /// How far from the newest slot object `at` sits, if it is in the
    /// window.
    pub fn distance_of(&self, at: u32) -> Option<usize> {
        self.slots.iter().rev().position(|s| s.at == at)
    }

    /// The objects the window holds and their chain lengths, oldest first.
    pub fn depths(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.slots.iter().map(|s| (s.at, s.depth))
    }

    /// Sets the chain length of each object `depth` knows (a search that
    /// started from a guess learns the true lengths afterwards); those now
    /// as long as the limit leave the window.
    pub fn correct_depths(&mut self, depth: impl Fn(u32) -> Option<u32>) {
        for slot in &mut self.slots {
            if let Some(d) = depth(slot.at) {
                slot.depth = d;
            }
        }
        let limit = self.opts.depth;
        let before = self.slots.len();
        self.slots.retain(|s| s.depth < limit);
        if self.slots.len() != before {
            self.bytes = self.slots.iter().map(|s| s.len).sum();
        }
    }
}

/// Runs the search over `objects` (all of one type), in git's order. `body(i)` returns the
/// bytes of object `i`; `sink(i, base, delta)` receives each delta chosen
/// (in sorted order, so a base's own choice has always been reported
/// before). Returns one [`Choice`] per object.
pub fn search<E>(
    objects: &[WindowObject],
    opts: WindowOptions,
    mut body: impl FnMut(u32) -> Result<Vec<u8>, E>,
    mut sink: impl FnMut(u32, u32, Vec<u8>) -> Result<(), E>,
) -> Result<Vec<Choice>, E> {
    let order = sorted(objects);
    let mut choices = vec![Choice::default(); objects.len()];
    let mut window = Window::new(opts);
    for &at in &order {
        let target = body(at)?;
        let found = window.find(&target, None);
        let base = found.as_ref().map(|f| f.base);
        if let Some(found) = found {
            choices[at as usize] = Choice {
                base: Some(found.base),
                depth: found.depth,
            };
            sink(at, found.base, found.delta)?;
        }
        window.push(at, choices[at as usize].depth, target, base);
    }
    Ok(choices)
}

/// git's `type_size_sort` for objects of one type: by name hash, then by
/// size, largest first (a delta that removes bytes is smaller than one
/// that adds them), then by position in the input, which the caller lists
/// in history order, newest first (git's tie-break: its list of objects
/// is in the order the history walk met them).
pub fn sorted(objects: &[WindowObject]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..objects.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (objects[a as usize], objects[b as usize]);
        y.name_hash
            .cmp(&x.name_hash)
            .then(y.size.cmp(&x.size))
            .then(a.cmp(&b))
    });
    order
}

/// git's first bound in `try_delta`, before any delta of the target is
/// known: half the target's `target_len` bytes less one object name,
/// scaled by the room a base whose chain is `base_depth` long leaves
/// under `--depth` (which must exceed `base_depth`).
pub fn first_limit(target_len: usize, base_depth: u32, opts: WindowOptions) -> usize {
    (target_len / 2).saturating_sub(opts.id_len) * (opts.depth - base_depth) as usize
        / opts.depth as usize
}

/// git's `try_delta`: the longest delta of `target` against `slot` worth
/// keeping, given the `best` one so far; `None` if none can be.
fn size_limit<B: AsRef<[u8]>>(
    slot: &Slot<B>,
    target: &[u8],
    best: Option<&Found>,
    opts: WindowOptions,
) -> Option<usize> {
    if slot.depth >= opts.depth {
        return None;
    }
    let trg_size = target.len() as u64;
    let src_size = slot.len as u64;
    let max_size = match best {
        None => first_limit(target.len(), slot.depth, opts) as u64,
        // At most as long as the delta we have (equal only if shallower,
        // see `beats`), scaled by the room each chain leaves.
        Some(found) => {
            found.delta.len() as u64 * u64::from(opts.depth - slot.depth)
                / u64::from(opts.depth - found.depth.min(opts.depth) + 1)
        }
    };
    if max_size == 0 {
        return None;
    }
    let sizediff = trg_size.saturating_sub(src_size);
    if sizediff >= max_size || trg_size < src_size / 32 {
        return None;
    }
    Some(usize::try_from(max_size).unwrap_or(usize::MAX))
}

/// Whether `best` is so short next to `target` that no other try is worth
/// its cost: a try reads the whole target, and could save at most the
/// delta's length. Only large targets stop early (a delta has a few bytes
/// of header and opcodes at least).
fn enough(best: Option<&Found>, target: &[u8]) -> bool {
    target.len() >= ENOUGH_MIN
        && best.is_some_and(|found| found.delta.len().saturating_mul(ENOUGH) <= target.len())
}

/// Whether a delta of `len` bytes against a base whose chain is
/// `base_depth` long replaces `best`: a delta as long as the one we have
/// wins only with a shorter chain.
fn beats(len: usize, base_depth: u32, best: Option<&Found>) -> bool {
    match best {
        Some(found) => len != found.delta.len() || base_depth + 1 < found.depth,
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::delta::apply::apply_delta;

    fn versions() -> Vec<Vec<u8>> {
        // A file growing line by line, plus unrelated noise.
        let mut out = Vec::new();
        let mut text = String::new();
        for i in 0..60 {
            text.push_str(&format!("line {i} of a file that keeps growing\n"));
            out.push(text.clone().into_bytes());
            out.push(format!("noise {}", i * 7919).repeat(i % 5 + 1).into_bytes());
        }
        out
    }

    fn run(bodies: &[Vec<u8>], window: usize, depth: u32) -> (Vec<Choice>, usize) {
        let objects: Vec<WindowObject> = bodies
            .iter()
            .map(|b| WindowObject {
                name_hash: 0,
                size: b.len() as u64,
            })
            .collect();
        let mut delta_bytes = 0;
        let mut deltas = vec![None; bodies.len()];
        let choices = search::<()>(
            &objects,
            WindowOptions::unbounded(window, depth),
            |i| Ok(bodies[i as usize].clone()),
            |i, base, delta| {
                delta_bytes += delta.len();
                deltas[i as usize] = Some((base, delta));
                Ok(())
            },
        )
        .expect("infallible");
        // Every delta applies, chains respect the depth, depths are right.
        for (i, c) in choices.iter().enumerate() {
            match (&deltas[i], c.base) {
                (Some((base, delta)), Some(b)) => {
                    assert_eq!(*base, b);
                    let mut out = Vec::new();
                    apply_delta(&bodies[b as usize], delta, &mut out).expect("applies");
                    assert_eq!(out, bodies[i]);
                    assert_eq!(c.depth, choices[b as usize].depth + 1);
                    assert!(c.depth <= depth);
                }
                (None, None) => assert_eq!(c.depth, 0),
                _ => panic!("sink and choices disagree for {i}"),
            }
        }
        (choices, delta_bytes)
    }

    #[test]
    fn finds_the_versions_and_respects_depth() {
        let bodies = versions();
        let (choices, _) = run(&bodies, 10, 50);
        let deltas = choices.iter().filter(|c| c.base.is_some()).count();
        // Each of the 59 later text versions is a delta of another one.
        assert!(deltas >= 55, "only {deltas} deltas");
        for depth in [1, 3] {
            let (choices, _) = run(&bodies, 10, depth);
            assert!(choices.iter().all(|c| c.depth <= depth));
            assert!(choices.iter().any(|c| c.depth == 1));
            // Every version only removes lines from the largest one, which
            // stays the newest slot of the window: no version needs a
            // chain longer than one.
            let deltas = choices.iter().filter(|c| c.base.is_some()).count();
            assert!(deltas >= 55, "depth {depth}: only {deltas} deltas");
        }
    }

    #[test]
    fn no_window_or_depth_means_no_deltas() {
        let bodies = versions();
        for (w, d) in [(0, 50), (10, 0)] {
            let (choices, bytes) = run(&bodies, w, d);
            assert!(choices.iter().all(|c| c.base.is_none()));
            assert_eq!(bytes, 0);
        }
    }

    #[test]
    fn a_wider_window_is_never_much_worse() {
        let bodies = versions();
        let (_, narrow) = run(&bodies, 2, 50);
        let (_, wide) = run(&bodies, 50, 50);
        assert!(wide <= narrow + narrow / 10, "{wide} vs {narrow}");
    }

    #[test]
    fn the_window_keeps_its_count_and_memory_limits() {
        let body = |i: u8| vec![i; 1000];
        let opts = WindowOptions {
            window: 3,
            depth: 50,
            memory: 2500,
            id_len: 32,
            tries: Tries::Every,
        };
        let mut window = Window::new(opts);
        for i in 0..3u8 {
            window.push(u32::from(i), 0, body(i), None);
        }
        // 3000 bytes held > 2500: the oldest went; at most two remain.
        assert!(window.find(&body(0), None).is_none());
        assert_eq!(window.find(&body(2), None).map(|f| f.base), Some(2));
        // Under 50 bytes: never a base, never searched.
        window.push(9, 0, vec![1; 49], None);
        assert!(window.find(&[1; 49], None).is_none());
        // A chain at the depth limit is no base.
        let mut full = Window::new(WindowOptions { depth: 2, ..opts });
        full.push(0, 2, body(7), None);
        assert!(full.find(&body(7), None).is_none());
        full.push(1, 1, body(7), None);
        let found = full.find(&body(7), None).expect("a delta");
        assert_eq!((found.base, found.depth, found.distance), (1, 2, 0));
    }

    #[test]
    fn ranked_tries_reach_a_resembling_base_beyond_the_newest() {
        // One old version of a file, then 30 unrelated objects: with the
        // 2 newest tried, the old version is found only by its sketch.
        let old = noise(7, 6000);
        let mut new = old.clone();
        new[3000..3100].copy_from_slice(&noise(8, 100));
        let filled = |resembling| {
            let mut window = Window::new(WindowOptions {
                tries: Tries::Ranked {
                    newest: 2,
                    resembling,
                },
                ..WindowOptions::unbounded(64, 50)
            });
            window.push(0, 0, old.clone(), None);
            for i in 1..=30 {
                window.push(i, 0, noise(100 + u64::from(i), 6000), None);
            }
            window
        };
        let found = filled(1).find(&new, None).expect("a delta");
        assert_eq!((found.base, found.distance), (0, 30));
        let mut out = Vec::new();
        apply_delta(&old, &found.delta, &mut out).expect("applies");
        assert_eq!(out, new);
        // Without the ranked tries, the two newest give nothing.
        assert!(filled(0).find(&new, None).is_none());
    }

    /// Versions of one large file (over [`SIDE_BY_SIDE_MIN`]), each one to
    /// many edits away from a random earlier one, among unrelated bodies:
    /// deltas of every length (some short [`enough`] to end a search), and
    /// tries that give up.
    fn large_versions(n: u64) -> Vec<Vec<u8>> {
        let len = 2 * SIDE_BY_SIDE_MIN;
        let mut rng = crate::testing::rng::Rng(0x5eed);
        let mut out: Vec<Vec<u8>> = vec![noise(1, len + 4000)];
        for i in 1..n {
            if i % 7 == 0 {
                out.push(noise(1000 + i, len + 2000));
                continue;
            }
            let mut body = out[rng.below(out.len())].clone();
            let edits = if i % 3 == 0 { 1 } else { 1 + rng.below(40) };
            for _ in 0..edits {
                let span = 1 + rng.below(64);
                let at = rng.below(body.len() - span);
                body[at..at + span].copy_from_slice(&noise(rng.next(), span));
            }
            out.push(body);
        }
        out
    }

    /// What each of `bodies` gets from one window, in order, searched on
    /// a pool of `threads`.
    fn search_on(threads: usize, bodies: &[Vec<u8>], opts: WindowOptions) -> Vec<Option<Found>> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        pool.install(|| {
            let mut window = Window::new(opts);
            let mut found = Vec::new();
            for (at, body) in bodies.iter().enumerate() {
                let f = window.find(body, None);
                let (depth, base) = f.as_ref().map_or((0, None), |f| (f.depth, Some(f.base)));
                window.push(at as u32, depth, body.clone(), base);
                found.push(f);
            }
            found
        })
    }

    #[test]
    fn side_by_side_tries_choose_as_one_by_one() {
        let bodies = large_versions(30);
        // A short depth: the limits scale with the chains, so tries of one
        // batch are held to different limits.
        for tries in [
            Tries::Every,
            Tries::Ranked {
                newest: 3,
                resembling: 5,
            },
        ] {
            let opts = WindowOptions {
                tries,
                ..WindowOptions::unbounded(12, 3)
            };
            let alone = search_on(1, &bodies, opts);
            assert_eq!(search_on(3, &bodies, opts), alone, "{tries:?}");
            assert!(alone.iter().filter(|f| f.is_some()).count() >= 20);
            for (at, found) in alone.iter().enumerate() {
                if let Some(found) = found {
                    let mut out = Vec::new();
                    apply_delta(&bodies[found.base as usize], &found.delta, &mut out)
                        .expect("applies");
                    assert_eq!(out, bodies[at]);
                }
            }
        }
    }

    #[test]
    fn a_short_enough_delta_among_the_newest_spares_the_ranked_tries() {
        // The oldest slot holds the target itself; `near`, the target with
        // one byte changed, already gives a delta under 1/ENOUGH.
        let target = noise(5, 300_000);
        let mut near = target.clone();
        near[150_000] ^= 1;
        let filled = |tries, near_is_newest: bool| {
            let mut window = Window::new(WindowOptions {
                tries,
                ..WindowOptions::unbounded(64, 50)
            });
            window.push(0, 0, target.clone(), None);
            if !near_is_newest {
                window.push(1, 0, near.clone(), None);
            }
            for i in 2..=20 {
                window.push(i, 0, noise(100 + u64::from(i), 6000), None);
            }
            if near_is_newest {
                window.push(1, 0, near.clone(), None);
            }
            window
        };
        let ranked = Tries::Ranked {
            newest: 1,
            resembling: 4,
        };
        for threads in [1, 3] {
            let on_pool = |tries, near_is_newest: bool| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a thread pool")
                    .install(|| filled(tries, near_is_newest).find(&target, None))
                    .expect("a delta")
            };
            let found = on_pool(ranked, true);
            assert_eq!(found.base, 1, "{threads} threads");
            assert!(found.delta.len() * ENOUGH <= target.len());
            // Among the ranked tries, the first short enough ends the
            // search too (`near`, the nearer), also when they are diffed
            // side by side.
            assert_eq!(on_pool(ranked, false).base, 1, "{threads} threads");
            // git's search tries every slot, and takes the exact copy.
            assert_eq!(on_pool(Tries::Every, true).base, 0, "{threads} threads");
        }
    }

    /// Pseudo-random text, different for each `seed`.
    fn noise(seed: u64, len: usize) -> Vec<u8> {
        let mut rng = crate::testing::rng::Rng(seed.wrapping_mul(0x9e37_79b9) | 1);
        rng.bytes(len, 26).iter().map(|c| b'a' + c).collect()
    }

    #[test]
    fn the_chosen_base_moves_to_the_newest_slot_and_stays() {
        // Each version replaces 500 bytes of a different quarter of the
        // base with text of its own: the base is the best for all, two
        // versions are poor bases of each other (each lacks a part the
        // other has).
        let base = noise(1, 4000);
        let version = |i: usize| {
            let mut v = base.clone();
            let part = (i % 4) * 1000;
            v[part..part + 500].copy_from_slice(&noise(100 + i as u64, 500));
            v
        };
        let opts = WindowOptions::unbounded(2, 50);
        let mut window = Window::new(opts);
        window.push(0, 0, base.clone(), None);
        for i in 1..8u32 {
            let body = version(i as usize);
            let found = window.find(&body, None).expect("a delta");
            assert_eq!(found.base, 0, "version {i} is a delta of the base");
            // Moved after each delta, the base is always the newest slot.
            assert_eq!(found.distance, 0, "version {i}");
            window.push(i, found.depth, body, Some(found.base));
            assert_eq!(window.distance_of(0), Some(0));
            assert_eq!(window.distance_of(i), Some(1));
        }
        // Left where it was, the base would have fallen out of a window of
        // two after the second version: the third is a delta of another
        // version.
        let mut unmoved = Window::new(opts);
        unmoved.push(0, 0, base.clone(), None);
        for i in 1..4u32 {
            let body = version(i as usize);
            let found = unmoved.find(&body, None).expect("a delta");
            assert_eq!(found.base == 0, i < 3, "version {i}");
            unmoved.push(i, found.depth, body, None);
        }
    }

    #[test]
    fn an_object_at_full_depth_is_not_kept() {
        let opts = WindowOptions::unbounded(10, 1);
        let base = noise(7, 2000);
        let mut target = base.clone();
        target.extend_from_slice(b"one more line at the end of the file\n");
        let mut window = Window::new(opts);
        window.push(0, 0, base, None);
        let found = window.find(&target, None).expect("a delta");
        assert_eq!(found.depth, 1);
        window.push(1, found.depth, target, Some(found.base));
        assert_eq!(window.distance_of(1), None, "a full-depth delta is no base");
        assert_eq!(window.depths().collect::<Vec<_>>(), vec![(0, 0)]);
        // Depths learned afterwards: the slots now at the limit leave.
        window.correct_depths(|at| (at == 0).then_some(1));
        assert_eq!(window.depths().count(), 0);
    }

    #[test]
    fn an_equal_delta_wins_only_with_a_shorter_chain() {
        let opts = WindowOptions::unbounded(10, 50);
        let base = noise(3, 3000);
        let mut target = base.clone();
        target[1500..1600].copy_from_slice(&noise(4, 100));
        // The same body twice: the deeper copy is tried first (newest) and
        // the shallower one makes the same delta with a shorter chain.
        let mut window = Window::new(opts);
        window.push(0, 0, base.clone(), None);
        window.push(1, 5, base.clone(), None);
        let found = window.find(&target, None).expect("a delta");
        assert_eq!((found.base, found.depth), (0, 1));
        // The other way round, the deeper one does not replace it.
        let mut window = Window::new(opts);
        window.push(1, 5, base.clone(), None);
        window.push(0, 0, base, None);
        let found = window.find(&target, None).expect("a delta");
        assert_eq!((found.base, found.depth), (0, 1));
    }

    #[test]
    fn ties_keep_the_input_order() {
        let objects = [
            WindowObject {
                name_hash: 5,
                size: 100,
            },
            WindowObject {
                name_hash: 9,
                size: 100,
            },
            WindowObject {
                name_hash: 5,
                size: 100,
            },
            WindowObject {
                name_hash: 5,
                size: 200,
            },
        ];
        // Name hash, then size, both descending; then input position.
        assert_eq!(sorted(&objects), vec![1, 3, 0, 2]);
    }
}
