//! The window search over one chunk of a write pass, cut into pieces that
//! are searched in parallel, with windows that start warm, and a result
//! that depends on neither the thread count nor the order in which pieces
//! finish, nor on whether the run was resumed.
//!
//! * The first piece starts from the `--window` objects before the chunk
//!   (`search_tail.rs`), with the chain lengths they were written with.
//! * Every later piece starts from the `--window` objects just before it
//!   (in the chunk, and before it in the tail), pushed as candidates before
//!   its own. The chains of the chunk's objects are not known yet (the
//!   piece before is being searched at the same time), so the piece takes
//!   the ones it searched as whole (depth 0).
//! * Once every piece is done, the true chain lengths are worked out in
//!   order; a delta whose chain that guess made longer than `--depth` is
//!   dropped (the object is stored whole), as git's `break_delta_chains`
//!   cuts chains, and the tail handed to the next chunk has the true
//!   lengths.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use super::search_record::Choice;
use super::search_tail::{Held, Tail, TailEntry};
use crate::object::ObjectKind;
use crate::pack::{DeltaIndex, Found, Sketch, Tries, Window, WindowOptions};

/// Objects of a piece read (and sketched) ahead of the search at once, on
/// the thread pool, and the most bytes of bodies that may take.
const READ_AHEAD: usize = 16;
const READ_AHEAD_BYTES: u64 = 16 << 20;

/// One object of a chunk, in the pass's order.
#[derive(Clone, Copy, Debug)]
pub struct Searchable {
    /// Table index.
    pub at: u32,
    pub kind: ObjectKind,
    /// `Some(depth)`: how it is stored is decided already (whole, or a
    /// delta whose chain is at most `depth` long); it is a candidate base
    /// only. `None`: the search looks for its base.
    pub fixed: Option<u32>,
    /// SOURCE's delta base of it, for the candidate log: where that sat in
    /// the window.
    pub source_base: Option<u32>,
    /// Its body's length (0 if unknown), which bounds how many bodies are
    /// read ahead at once.
    pub size: u64,
}

/// What the search found for one object of the chunk.
#[derive(Debug, Default)]
pub struct Searched {
    /// The delta chosen, its chain length the true one.
    pub found: Option<Found>,
    /// How far from the newest slot [`Searchable::source_base`] sat when
    /// the object was searched, if it was in the window.
    pub source_distance: Option<usize>,
}

impl Searched {
    /// What the search chose, as the search record keeps it.
    pub fn choice(&self) -> Choice {
        Choice {
            base: self.found.as_ref().map(|f| f.base),
            depth: self.found.as_ref().map_or(0, |f| f.depth),
        }
    }
}

/// The windows a search carries from a piece to the next one, one per
/// object type.
pub struct Windows<B: AsRef<[u8]>>(Vec<(ObjectKind, Window<B>)>);

impl<B: AsRef<[u8]> + Send + Sync> Windows<B> {
    fn new() -> Self {
        Windows(Vec::new())
    }

    fn of(&mut self, kind: ObjectKind, opts: WindowOptions) -> &mut Window<B> {
        let at = match self.0.iter().position(|(k, _)| *k == kind) {
            Some(at) => at,
            None => {
                self.0.push((kind, Window::new(opts)));
                self.0.len() - 1
            }
        };
        &mut self.0[at].1
    }
}

/// A body read once and shared by the windows and the tail that hold it.
#[derive(Clone)]
pub struct SharedBody(Arc<Vec<u8>>);

impl From<Vec<u8>> for SharedBody {
    fn from(body: Vec<u8>) -> Self {
        SharedBody(Arc::new(body))
    }
}

impl AsRef<[u8]> for SharedBody {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Each object's sketch, computed at most once for the chunk however many
/// windows it enters (as a target, in later pieces' warm starts, in
/// searches again): a sketch costs a pass over the body.
struct Sketches {
    ranked: bool,
    of: Vec<OnceLock<Sketch>>,
}

impl Sketches {
    fn new(n: usize, opts: WindowOptions) -> Self {
        // A window no wider than its newest tries never ranks its objects.
        let ranked = matches!(opts.tries, Tries::Ranked { newest, resembling }
            if resembling > 0 && opts.window > newest);
        Sketches {
            ranked,
            of: (0..if ranked { n } else { 0 })
                .map(|_| OnceLock::new())
                .collect(),
        }
    }

    /// The sketch of the chunk's `k`-th object, if one was made.
    fn made(&self, k: usize) -> Option<Sketch> {
        self.of.get(k).and_then(|s| s.get().copied())
    }

    /// The sketch of the chunk's `k`-th object, whose body is `body`;
    /// none when the windows never rank their objects.
    fn get(&self, k: usize, body: &[u8]) -> Option<Sketch> {
        self.ranked
            .then(|| *self.of[k].get_or_init(|| Sketch::of(body)))
    }
}

/// What the pieces of a chunk read before their own objects: the tail,
/// how to read a body it does not hold, and where the bodies the next
/// chunk's tail may hold are kept.
struct Before<'t, B, F> {
    tail: &'t Tail<B>,
    fetch: &'t F,
    kept: Kept<B>,
}

/// An object a window starts from.
struct Candidate<B> {
    at: u32,
    kind: ObjectKind,
    depth: u32,
    body: B,
    sketch: Option<Sketch>,
}

/// Bodies of the chunk's last objects, kept as the pieces read them.
struct Kept<B> {
    /// The chunk position of `bodies[0]`.
    first: usize,
    /// By position from `first`: whether to keep it.
    wanted: Vec<bool>,
    bodies: Vec<OnceLock<B>>,
}

impl<B: Clone> Kept<B> {
    /// The `k`-th object of the chunk was read as `body`.
    fn keep(&self, k: usize, body: &B) {
        if let Some(j) = k.checked_sub(self.first)
            && self.wanted[j]
        {
            let _ = self.bodies[j].set(body.clone());
        }
    }
}

/// The search of one chunk: its objects, the pieces they are cut into
/// (consecutive, covering the chunk), the window limits.
pub struct ChunkSearch<'a> {
    pub objects: &'a [Searchable],
    pub pieces: Vec<Range<usize>>,
    pub opts: WindowOptions,
    /// A delta each object has before its window is searched, against a
    /// base outside the chunk whose chain is known (empty: none has one).
    /// A window's candidate must beat it.
    pub outside: &'a [Option<Found>],
}

impl ChunkSearch<'_> {
    /// Searches every piece, in parallel, from `tail`, the objects before
    /// the chunk; `body(k)` gives the body of the chunk's `k`-th object,
    /// `fetch(at)` that of a tail object whose body the tail does not hold.
    /// Returns what each object got, in order, and the tail of the next
    /// chunk.
    pub fn run<B, E>(
        &self,
        tail: Tail<B>,
        body: impl Fn(usize) -> Result<B, E> + Sync,
        fetch: impl Fn(u32) -> Result<B, E> + Sync,
    ) -> Result<(Vec<Searched>, Tail<B>), E>
    where
        B: AsRef<[u8]> + Clone + Send + Sync,
        E: Send,
    {
        let sketches = Sketches::new(self.objects.len(), self.opts);
        let before = Before {
            tail: &tail,
            fetch: &fetch,
            kept: self.kept_for_the_tail(),
        };
        let done: Vec<Vec<Searched>> = self
            .pieces
            .par_iter()
            .map(|range| self.search_piece(range.clone(), &before, &body, &sketches))
            .collect::<Result<_, _>>()?;
        let mut out: Vec<Searched> = done.into_iter().flatten().collect();
        let position = self.positions();
        let depth = self.true_depths(&mut out, &position, &before, &body, &sketches)?;
        let Before { kept, .. } = before;
        let mut bodies = kept.bodies.into_iter();
        let chunk = (0..self.objects.len())
            .map(|k| {
                let body = match k.checked_sub(kept.first) {
                    Some(_) => bodies.next().and_then(OnceLock::into_inner),
                    None => None,
                };
                TailEntry {
                    at: self.objects[k].at,
                    kind: self.objects[k].kind,
                    depth: depth[k],
                    len: self.objects[k].size,
                    body,
                    sketch: sketches.made(k),
                }
            })
            .collect();
        let next = tail.followed_by(chunk, self.opts);
        Ok((out, next))
    }

    /// What [`ChunkSearch::run`] finds, made from the choices a search of
    /// this chunk made before (`search_record.rs`) rather than by searching:
    /// each object `wanted` whose choice is a delta is diffed against that
    /// base alone (the delta a search finds does not depend on the limit
    /// it was found under); the others get nothing, as if stored whole.
    /// `None` when the choices are not this chunk's (another count, a
    /// base that does not diff): the caller searches.
    pub fn replay<B, E>(
        &self,
        choices: &[Choice],
        wanted: impl Fn(usize) -> bool + Sync,
        body: impl Fn(usize) -> Result<B, E> + Sync,
        fetch: impl Fn(u32) -> Result<B, E> + Sync,
    ) -> Result<Option<Vec<Searched>>, E>
    where
        B: AsRef<[u8]> + Clone + Send + Sync,
        E: Send,
    {
        if choices.len() != self.objects.len() {
            return Ok(None);
        }
        let position = self.positions();
        // A body of the chunk is read once, as a target or as a base
        // (reading a blob may resolve a delta chain in SOURCE's pack).
        let read: Vec<OnceLock<B>> = (0..self.objects.len()).map(|_| OnceLock::new()).collect();
        let body = |j: usize| -> Result<B, E> {
            if let Some(held) = read[j].get() {
                return Ok(held.clone());
            }
            let fresh = body(j)?;
            Ok(read[j].get_or_init(|| fresh).clone())
        };
        let made: Vec<Option<Searched>> = (0..self.objects.len())
            .into_par_iter()
            .map(|k| {
                let Some(base) = choices[k].base.filter(|_| wanted(k)) else {
                    return Ok(Some(Searched::default()));
                };
                let base_body = match position.get(&base) {
                    Some(&j) => body(j)?,
                    None => fetch(base)?,
                };
                let target = body(k)?;
                let delta = DeltaIndex::new(base_body).encode(target.as_ref(), usize::MAX);
                Ok(delta.map(|delta| Searched {
                    found: Some(Found {
                        base,
                        depth: choices[k].depth,
                        delta,
                        distance: 0,
                    }),
                    source_distance: None,
                }))
            })
            .collect::<Result<_, E>>()?;
        Ok(made.into_iter().collect())
    }

    /// The next chunk's tail after this chunk was written with `choices`
    /// (what [`ChunkSearch::run`] returns beside what it found).
    pub fn tail_after<B: AsRef<[u8]>>(&self, tail: Tail<B>, choices: &[Choice]) -> Tail<B> {
        let chunk = self
            .objects
            .iter()
            .zip(choices)
            .map(|(object, choice)| TailEntry {
                at: object.at,
                kind: object.kind,
                depth: choice.depth,
                len: object.size,
                body: None,
                sketch: None,
            })
            .collect();
        tail.followed_by(chunk, self.opts)
    }

    /// Where the bodies the next chunk's tail may hold are kept as the
    /// pieces read them: of the chunk's last `--window` objects, those a
    /// window would hold by size (newest first, within the memory of each
    /// type). Their chains are not known yet, so this may keep a few too
    /// few; the next chunk reads those again.
    fn kept_for_the_tail<B>(&self) -> Kept<B> {
        let n = self.objects.len();
        let first = n.saturating_sub(self.opts.window);
        let mut held = Held::new(self.opts);
        let mut wanted = vec![false; n - first];
        for k in (first..n).rev() {
            let object = self.objects[k];
            wanted[k - first] =
                held.may_hold(object.kind, 0) && held.holds(object.kind, object.size);
        }
        Kept {
            first,
            wanted,
            bodies: (first..n).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Searches `range` of the chunk, its windows warm from the objects
    /// before it.
    fn search_piece<B, E>(
        &self,
        range: Range<usize>,
        before: &Before<'_, B, impl Fn(u32) -> Result<B, E> + Sync>,
        body: &(impl Fn(usize) -> Result<B, E> + Sync),
        sketches: &Sketches,
    ) -> Result<Vec<Searched>, E>
    where
        B: AsRef<[u8]> + Clone + Send + Sync,
        E: Send,
    {
        let objects = &self.objects[range.clone()];
        if objects.iter().all(|o| o.fixed.is_some()) {
            return Ok(objects.iter().map(|_| Searched::default()).collect());
        }
        let mut windows = self.warmed(range.start, before, body, sketches)?;
        let mut out = Vec::with_capacity(range.len());
        let mut ahead = range.start;
        while ahead < range.end {
            let group = self.read_ahead(ahead..range.end);
            ahead = group.end;
            // The group's bodies are read and sketched side by side: a run
            // of large versions of one file is one piece, and reading and
            // sketching its bodies one by one would keep one thread busy
            // while the others wait.
            let read: Vec<B> = group
                .clone()
                .into_par_iter()
                .map(|k| {
                    let read = body(k)?;
                    if self.objects[k].fixed.is_none() {
                        sketches.get(k, read.as_ref());
                    }
                    Ok(read)
                })
                .collect::<Result<_, E>>()?;
            for (k, target) in group.zip(read) {
                before.kept.keep(k, &target);
                out.push(self.search_one(k, target, &mut windows, sketches));
            }
        }
        Ok(out)
    }

    /// The objects from `rest.start` on that are read ahead together: at
    /// most [`READ_AHEAD`] of them and [`READ_AHEAD_BYTES`] of bodies (at
    /// least one).
    fn read_ahead(&self, rest: Range<usize>) -> Range<usize> {
        let mut bytes = 0u64;
        let mut end = rest.start;
        for object in &self.objects[rest.clone()] {
            if end - rest.start == READ_AHEAD
                || (end > rest.start && bytes + object.size > READ_AHEAD_BYTES)
            {
                break;
            }
            bytes += object.size;
            end += 1;
        }
        rest.start..end
    }

    /// Places the chunk's `k`-th object, `target`, in its window: looks
    /// for its base unless it is fixed, then adds it as a candidate.
    fn search_one<B>(
        &self,
        k: usize,
        target: B,
        windows: &mut Windows<B>,
        sketches: &Sketches,
    ) -> Searched
    where
        B: AsRef<[u8]> + Send + Sync,
    {
        let object = self.objects[k];
        let window = windows.of(object.kind, self.opts);
        if let Some(fixed) = object.fixed {
            window.push(object.at, fixed, target, None);
            return Searched::default();
        }
        let source_distance = object.source_base.and_then(|b| window.distance_of(b));
        let sketch = sketches.get(k, target.as_ref());
        let found = window.find_sketched(target.as_ref(), sketch.as_ref(), self.outside(k));
        let (depth, base) = found
            .as_ref()
            .map_or((0, None), |f| (f.depth, Some(f.base)));
        window.push_sketched(object.at, depth, target, base, sketch);
        Searched {
            found,
            source_distance,
        }
    }

    /// Windows holding the `--window` objects before position `start` of
    /// the chunk (in the chunk, then in the tail), of the types the piece
    /// there searches; an object of the chunk searched counts as whole
    /// (see the module doc), a tail object has its true chain length.
    fn warmed<B, E>(
        &self,
        start: usize,
        before: &Before<'_, B, impl Fn(u32) -> Result<B, E> + Sync>,
        body: &impl Fn(usize) -> Result<B, E>,
        sketches: &Sketches,
    ) -> Result<Windows<B>, E>
    where
        B: AsRef<[u8]> + Clone + Send + Sync,
    {
        let end = self
            .pieces
            .iter()
            .find(|r| r.start == start)
            .map_or(start, |r| r.end);
        let searched = &self.objects[start..end];
        let wanted =
            |kind: ObjectKind| searched.iter().any(|o| o.fixed.is_none() && o.kind == kind);
        let in_chunk = |j: usize| {
            let object = self.objects[j];
            wanted(object.kind).then(|| object.fixed.unwrap_or(0))
        };
        let recent = self.recent(start, in_chunk, wanted, before, body, sketches)?;
        let mut windows = Windows::new();
        for c in recent {
            windows
                .of(c.kind, self.opts)
                .push_sketched(c.at, c.depth, c.body, None, c.sketch);
        }
        Ok(windows)
    }

    /// What a window would hold of the (at most `--window`) objects before
    /// position `end` of the chunk, in the chunk and then in the tail,
    /// oldest first: of the chunk's objects those `in_chunk` gives a chain
    /// length, of the tail's those of the types `wanted` (with the chain
    /// they were written with); only chains shorter than the limit, and of
    /// each type only the newest that fit in the window's memory. The
    /// window would drop the older ones as the newer came in; reading them
    /// (for a run of large blobs, 250 bodies of megabytes) would cost more
    /// than the search they serve.
    fn recent<B, E>(
        &self,
        end: usize,
        in_chunk: impl Fn(usize) -> Option<u32>,
        wanted: impl Fn(ObjectKind) -> bool,
        before: &Before<'_, B, impl Fn(u32) -> Result<B, E> + Sync>,
        body: &impl Fn(usize) -> Result<B, E>,
        sketches: &Sketches,
    ) -> Result<Vec<Candidate<B>>, E>
    where
        B: AsRef<[u8]> + Clone + Send + Sync,
    {
        let from_chunk = end.min(self.opts.window);
        let mut held = Held::new(self.opts);
        let mut out = Vec::new();
        for j in (end - from_chunk..end).rev() {
            let kind = self.objects[j].kind;
            let Some(depth) = in_chunk(j).filter(|&d| held.may_hold(kind, d)) else {
                continue;
            };
            let read = body(j)?;
            if !held.holds(kind, read.as_ref().len() as u64) {
                continue;
            }
            let sketch = sketches.get(j, read.as_ref());
            out.push(Candidate {
                at: self.objects[j].at,
                kind,
                depth,
                body: read,
                sketch,
            });
        }
        for entry in before.tail.entries.iter().rev() {
            if !wanted(entry.kind) || !held.may_hold(entry.kind, entry.depth) {
                continue;
            }
            let read = match &entry.body {
                Some(read) => read.clone(),
                None => (before.fetch)(entry.at)?,
            };
            if !held.holds(entry.kind, read.as_ref().len() as u64) {
                continue;
            }
            out.push(Candidate {
                at: entry.at,
                kind: entry.kind,
                depth: entry.depth,
                body: read,
                sketch: entry.sketch,
            });
        }
        out.reverse();
        Ok(out)
    }

    /// Table index -> position in the chunk.
    fn positions(&self) -> HashMap<u32, usize> {
        self.objects
            .iter()
            .enumerate()
            .map(|(k, o)| (o.at, k))
            .collect()
    }

    /// Works out each object's chain length in order (bases come first:
    /// earlier in the chunk, found through `position`, or in `before`, the
    /// tail the chunk started from). A delta the guess made longer
    /// than the limit is searched for again among the `--window` objects
    /// before it whose chains are now known to be short enough (the window
    /// of a sequential search, but for the moves of chosen bases); stored
    /// whole only if that finds nothing.
    fn true_depths<B, E>(
        &self,
        out: &mut [Searched],
        position: &HashMap<u32, usize>,
        before: &Before<'_, B, impl Fn(u32) -> Result<B, E> + Sync>,
        body: &impl Fn(usize) -> Result<B, E>,
        sketches: &Sketches,
    ) -> Result<Vec<u32>, E>
    where
        B: AsRef<[u8]> + Clone + Send + Sync,
    {
        let tail_depths = before.tail.depths();
        let mut depth = vec![0u32; self.objects.len()];
        for k in 0..self.objects.len() {
            let object = self.objects[k];
            depth[k] = match (object.fixed, &out[k].found) {
                (Some(fixed), _) => fixed,
                (None, None) => 0,
                (None, Some(found)) => {
                    let base = match position.get(&found.base) {
                        Some(&j) => depth[j],
                        None => tail_depths
                            .get(&found.base)
                            .copied()
                            .unwrap_or(found.depth - 1),
                    };
                    if base < self.opts.depth {
                        base + 1
                    } else {
                        let again = self.search_again(k, &depth, before, body, sketches)?;
                        out[k].found = again;
                        out[k].found.as_ref().map_or(0, |f| f.depth)
                    }
                }
            };
            if let Some(found) = &mut out[k].found {
                found.depth = depth[k];
            }
        }
        Ok(depth)
    }

    /// The best delta of the chunk's `k`-th object against the objects of
    /// its type before it in the chunk, at most `--window` of them, whose
    /// chains (`depth`, known up to `k`) leave room for one more.
    fn search_again<B, E>(
        &self,
        k: usize,
        depth: &[u32],
        before: &Before<'_, B, impl Fn(u32) -> Result<B, E> + Sync>,
        body: &impl Fn(usize) -> Result<B, E>,
        sketches: &Sketches,
    ) -> Result<Option<Found>, E>
    where
        B: AsRef<[u8]> + Clone + Send + Sync,
    {
        let kind = self.objects[k].kind;
        let mut window = Window::new(self.opts);
        let in_chunk = |j: usize| (self.objects[j].kind == kind).then_some(depth[j]);
        let recent = self.recent(k, in_chunk, |t| t == kind, before, body, sketches)?;
        for c in recent {
            window.push_sketched(c.at, c.depth, c.body, None, c.sketch);
        }
        let target = body(k)?;
        let sketch = sketches.get(k, target.as_ref());
        Ok(window.find_sketched(target.as_ref(), sketch.as_ref(), self.outside(k)))
    }

    /// The delta the chunk's `k`-th object has from outside the chunk.
    fn outside(&self, k: usize) -> Option<Found> {
        self.outside.get(k).cloned().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::apply_delta;

    /// Versions of one file of 60 lines, each changing one more line than
    /// the one before: a version is closest to the one before it.
    fn versions(n: usize) -> Vec<Vec<u8>> {
        let line = |seed: u64| {
            let mut rng = crate::testing::rng::Rng(seed.wrapping_mul(0x9e37_79b9) | 1);
            let mut line: Vec<u8> = rng.bytes(40, 26).iter().map(|c| b'a' + c).collect();
            line.push(b'\n');
            line
        };
        (0..n as u64)
            .map(|v| {
                (0..60)
                    .flat_map(|j| line(if j < v { 1000 + j } else { j }))
                    .collect()
            })
            .collect()
    }

    fn objects(n: usize) -> Vec<Searchable> {
        (0..n as u32)
            .map(|at| Searchable {
                at,
                kind: ObjectKind::Blob,
                fixed: None,
                source_base: None,
                size: 0,
            })
            .collect()
    }

    /// The chunk `bodies`, in pieces of `piece` objects, on `threads`.
    fn search(
        bodies: &[Vec<u8>],
        piece: usize,
        opts: WindowOptions,
        threads: usize,
    ) -> Vec<Option<(u32, u32)>> {
        let objects = objects(bodies.len());
        let pieces = (0..bodies.len())
            .step_by(piece)
            .map(|s| s..(s + piece).min(bodies.len()))
            .collect();
        let search = ChunkSearch {
            objects: &objects,
            pieces,
            opts,
            outside: &[],
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        let (out, _) = pool
            .install(|| search.run::<_, ()>(Tail::empty(), |k| Ok(bodies[k].clone()), no_fetch))
            .expect("infallible");
        // Every delta applies.
        let mut chains = vec![0u32; bodies.len()];
        for (k, s) in out.iter().enumerate() {
            if let Some(f) = &s.found {
                let mut whole = Vec::new();
                apply_delta(&bodies[f.base as usize], &f.delta, &mut whole).expect("applies");
                assert_eq!(whole, bodies[k]);
                chains[k] = chains[f.base as usize] + 1;
                assert_eq!(f.depth, chains[k], "object {k}: the true chain length");
                assert!(f.depth <= opts.depth);
            }
        }
        out.iter()
            .map(|s| s.found.as_ref().map(|f| (f.base, f.depth)))
            .collect()
    }

    #[test]
    fn later_pieces_start_warm_and_the_thread_count_does_not_matter() {
        let bodies = versions(40);
        let one = search(&bodies, 8, WindowOptions::unbounded(4, 50), 1);
        assert_eq!(one, search(&bodies, 8, WindowOptions::unbounded(4, 50), 3));
        // The first object of every piece but the first finds its base in
        // the piece before: the window did not start empty.
        for start in (8..40).step_by(8) {
            assert_eq!(one[start].map(|(base, _)| base), Some(start as u32 - 1));
        }
        assert_eq!(one[0], None);
    }

    #[test]
    fn chains_the_warm_start_made_too_long_are_searched_again() {
        // Depth 1, window 1, pieces of 2. The second piece takes object 1
        // as whole and makes 2 and 3 deltas of it, but 1 is a delta
        // already. Searched again, 2 finds no base whose chain leaves room
        // (1 is at the limit) and is stored whole; 3 then finds 2. The
        // third piece takes 3 as whole, but it is a delta: 4, searched
        // again, is stored whole, and 5 is a delta of 4.
        let bodies = versions(6);
        let expected = vec![None, Some((0, 1)), None, Some((2, 1)), None, Some((4, 1))];
        for threads in [1, 3] {
            assert_eq!(
                search(&bodies, 2, WindowOptions::unbounded(1, 1), threads),
                expected
            );
        }
        // With a window of 2, the search again reaches past the object at
        // the limit: 2 becomes a delta of 0.
        let wider = search(&bodies, 2, WindowOptions::unbounded(2, 1), 1);
        assert_eq!(wider[2], Some((0, 1)));
        assert_eq!(wider, search(&bodies, 2, WindowOptions::unbounded(2, 1), 3));
    }

    /// A tail object whose body the test never expects to be read.
    fn no_fetch(at: u32) -> Result<Vec<u8>, ()> {
        panic!("object {at}'s body was in the tail")
    }

    #[test]
    fn the_next_chunk_starts_from_the_tail_with_true_depths() {
        let bodies = versions(12);
        let mut objects = objects(12);
        for (o, body) in objects.iter_mut().zip(&bodies) {
            o.size = body.len() as u64;
        }
        let search =
            |range: Range<usize>, tail, fetch: &(dyn Fn(u32) -> Result<Vec<u8>, ()> + Sync)| {
                let chunk = ChunkSearch {
                    objects: &objects[range.clone()],
                    pieces: vec![0..2, 2..range.len()],
                    opts: WindowOptions::unbounded(3, 10),
                    outside: &[],
                };
                chunk
                    .run::<_, ()>(tail, |k| Ok(bodies[range.start + k].clone()), fetch)
                    .expect("infallible")
            };
        let (first, tail) = search(0..6, Tail::empty(), &no_fetch);
        let ats: Vec<u32> = tail.entries.iter().map(|e| e.at).collect();
        assert_eq!(ats, [3, 4, 5]);
        for entry in &tail.entries {
            let written = first[entry.at as usize]
                .found
                .as_ref()
                .map_or(0, |f| f.depth);
            assert_eq!(entry.depth, written, "object {}", entry.at);
            assert!(entry.body.is_some(), "the pass still held it");
        }
        // The next chunk's first object finds the object before it.
        let chains: Vec<u32> = first
            .iter()
            .map(|s| s.found.as_ref().map_or(0, |f| f.depth))
            .collect();
        let (second, _) = search(6..12, tail, &no_fetch);
        let found = second[0].found.as_ref().expect("a delta");
        assert_eq!(found.base, 5);
        // A resumed run starts from the same tail, its bodies read again.
        let before = (0..6u32).map(|at| (at, ObjectKind::Blob));
        let read = |at: u32| Ok(bodies[at as usize].clone());
        let depth = |at: u32| Some(chains[at as usize]);
        let len = |_, body: &Vec<u8>| body.len() as u64;
        let Ok(written) =
            Tail::of_written(before, WindowOptions::unbounded(3, 10), depth, read, len)
        else {
            panic!("every chain is known");
        };
        let (resumed, _) = search(6..12, written, &read);
        let choices = |out: &[Searched]| -> Vec<Option<(u32, u32)>> {
            out.iter()
                .map(|s| s.found.as_ref().map(|f| (f.base, f.depth)))
                .collect()
        };
        assert_eq!(choices(&resumed), choices(&second));
    }

    #[test]
    fn a_chunk_replayed_from_its_choices_gives_what_its_search_gave() {
        let bodies = versions(18);
        let mut objects = objects(18);
        for (o, body) in objects.iter_mut().zip(&bodies) {
            o.size = body.len() as u64;
        }
        let opts = WindowOptions::unbounded(3, 4);
        let chunk = |range: Range<usize>| ChunkSearch {
            objects: &objects[range],
            pieces: vec![0..3, 3..9],
            opts,
            outside: &[],
        };
        let read = |at: u32| Ok::<_, ()>(bodies[at as usize].clone());
        let (first, second) = (chunk(0..9), chunk(9..18));
        let body = |k: usize| read(k as u32 + 9);
        let (written, tail) = first.run(Tail::empty(), |k| read(k as u32), read).unwrap();
        let chains: Vec<u32> = written
            .iter()
            .map(|s| s.found.as_ref().map_or(0, |f| f.depth))
            .collect();
        let (searched, next) = second.run(tail, body, read).unwrap();
        let choices: Vec<Choice> = searched.iter().map(Searched::choice).collect();
        assert!(choices.iter().any(|c| c.depth > 1), "chains to carry on");
        // Objects 9-11 were written before the kill: not diffed again.
        let replayed = second
            .replay(&choices, |k| k >= 3, body, read)
            .unwrap()
            .expect("the choices fit");
        for (k, (again, first)) in replayed.iter().zip(&searched).enumerate() {
            let found = |s: &Searched| s.found.as_ref().map(|f| (f.base, f.depth, f.delta.clone()));
            match k < 3 {
                true => assert!(again.found.is_none()),
                false => assert_eq!(found(again), found(first), "object {}", k + 9),
            }
        }
        // The next chunk starts from the same objects, with the same chains.
        let before = (0..9u32).map(|at| (at, ObjectKind::Blob));
        let len = |_, body: &Vec<u8>| body.len() as u64;
        let depth = |at: u32| chains.get(at as usize).copied();
        let Ok(rebuilt) = Tail::of_written(before, opts, depth, read, len) else {
            panic!("every chain is known");
        };
        let after = second.tail_after(rebuilt, &choices);
        let shape = |t: &Tail<Vec<u8>>| -> Vec<(u32, u32)> {
            t.entries.iter().map(|e| (e.at, e.depth)).collect()
        };
        assert_eq!(shape(&after), shape(&next));
        let wrong = second.replay(&choices[1..], |_| true, body, read).unwrap();
        assert!(wrong.is_none(), "another chunk's choices are not taken");
    }

    #[test]
    fn fixed_objects_are_bases_only_and_pieces_without_a_search_read_nothing() {
        let bodies = versions(6);
        let mut objects = objects(6);
        for (o, body) in objects.iter_mut().zip(&bodies) {
            o.size = body.len() as u64;
        }
        for o in &mut objects[..3] {
            o.fixed = Some(0);
        }
        objects[4].source_base = Some(3);
        let chunk = ChunkSearch {
            objects: &objects,
            pieces: vec![0..3, 3..6],
            opts: WindowOptions::unbounded(10, 50),
            outside: &[],
        };
        let (out, _) = chunk
            .run::<_, ()>(Tail::empty(), |k| Ok(bodies[k].clone()), no_fetch)
            .expect("infallible");
        assert!(out[..3].iter().all(|s| s.found.is_none()));
        assert_eq!(out[3].found.as_ref().map(|f| f.base), Some(2));
        // 3 was pushed, then its base 2 moved in front of it.
        assert_eq!(out[4].source_distance, Some(1));
        // Only fixed objects: nothing searched, their bodies not even read.
        let chunk = ChunkSearch {
            objects: &objects[..3],
            pieces: std::iter::once(0..3).collect(),
            opts: WindowOptions::unbounded(10, 50),
            outside: &[],
        };
        let (out, tail) = chunk
            .run::<_, ()>(Tail::empty(), |_| Err(()), no_fetch)
            .expect("nothing read");
        assert!(out.iter().all(|s| s.found.is_none()));
        assert_eq!(tail.entries.len(), 3);
    }

    #[test]
    fn a_delta_from_outside_the_chunk_stands_unless_a_window_try_beats_it() {
        use crate::pack::{NOT_IN_WINDOW, encode_delta};
        let bodies = versions(4);
        // Object 100 (the first version) is outside the chunk, its chain
        // 7 long; the chunk holds versions 1 to 3.
        let outside_base = &bodies[0];
        let objects = &objects(4)[1..];
        let given = |k: usize| {
            let delta = encode_delta(outside_base, &bodies[k + 1], usize::MAX).expect("no limit");
            Some(Found {
                base: 100,
                depth: 8,
                delta,
                distance: NOT_IN_WINDOW,
            })
        };
        let outside: Vec<Option<Found>> = (0..3).map(given).collect();
        let search = ChunkSearch {
            objects,
            pieces: std::iter::once(0..3).collect(),
            opts: WindowOptions::unbounded(10, 50),
            outside: &outside,
        };
        let (out, _) = search
            .run::<_, ()>(Tail::empty(), |k| Ok(bodies[k + 1].clone()), no_fetch)
            .expect("infallible");
        // The first has nothing in its window: it keeps the outside delta,
        // one past the outside chain.
        let first = out[0].found.as_ref().expect("the outside delta");
        assert_eq!((first.base, first.depth), (100, 8));
        // The next ones find the version before them, a shorter delta.
        for (k, searched) in out.iter().enumerate().skip(1) {
            let found = searched.found.as_ref().expect("a delta");
            assert_eq!(found.base, k as u32, "object {}", k + 1);
            assert_eq!(found.depth, 9 + k as u32 - 1, "object {}", k + 1);
            let mut whole = Vec::new();
            apply_delta(&bodies[k], &found.delta, &mut whole).expect("applies");
            assert_eq!(whole, bodies[k + 1]);
        }
    }
}
