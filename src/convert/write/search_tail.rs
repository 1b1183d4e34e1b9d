//! The objects just before a chunk in a write pass's order, with the chain
//! length each was written with: what the window search of the chunk
//! starts from (`piece_search.rs`).
//!
//! A chunk's windows start from the `--window` objects before it, never
//! from the windows the chunk before ended with: those hold the history of
//! the whole pass (which slots git's `find_deltas` moved to the front,
//! which bases it indexed), while this list is a function of the pass's
//! order and the chains written. So a run resumed at any chunk builds the
//! same start as a run that was never interrupted, from SOURCE's bodies and
//! the chain lengths read back from the segments (`output_depths.rs`):
//! the resumed run redoes at most one chunk instead of a whole group of
//! them.
//!
//! Bodies are kept only as a cache: a pass hands on those it still holds
//! (at most a window's memory of each type), and the search reads the
//! others again when it needs them.

use std::collections::HashMap;

use crate::object::ObjectKind;
use crate::pack::write::{Sketch, WINDOW_MIN_SIZE};

/// The objects before a chunk, oldest first, at most `--window` of them.
pub struct Tail<B> {
    pub(super) entries: Vec<TailEntry<B>>,
}

/// One object of a [`Tail`].
pub struct TailEntry<B> {
    /// Table index.
    pub at: u32,
    pub kind: ObjectKind,
    /// The length of the chain it was written with (0: whole).
    pub depth: u32,
    /// Its body, if the pass still held it.
    pub body: Option<B>,
    /// Its sketch, if one was made.
    pub sketch: Option<Sketch>,
}

impl<B: AsRef<[u8]>> Tail<B> {
    /// Nothing before: the first chunk of a pass, or no search.
    pub fn empty() -> Self {
        Tail {
            entries: Vec::new(),
        }
    }

    /// The tail of the objects `before` a chunk (the pass's order up to
    /// it, oldest first, with their types), which an interrupted run
    /// wrote: their chain lengths are `depth`'s (read back from the
    /// segments), their bodies are read when needed. `Err(at)`: the chain
    /// length of object `at` is not known.
    pub fn of_written(
        before: impl DoubleEndedIterator<Item = (u32, ObjectKind)>,
        window: usize,
        depth: impl Fn(u32) -> Option<u32>,
    ) -> Result<Self, u32> {
        let mut entries = before
            .rev()
            .take(window)
            .map(|(at, kind)| {
                Ok(TailEntry {
                    at,
                    kind,
                    depth: depth(at).ok_or(at)?,
                    body: None,
                    sketch: None,
                })
            })
            .collect::<Result<Vec<_>, u32>>()?;
        entries.reverse();
        Ok(Tail { entries })
    }

    /// The chain length of each object it holds.
    pub(super) fn depths(&self) -> HashMap<u32, u32> {
        self.entries.iter().map(|e| (e.at, e.depth)).collect()
    }

    /// The tail after `chunk` (oldest first): the last `window` objects of
    /// this one and the chunk together. Bodies are kept, newest first, for
    /// as long as each type's stay within `memory` (as a window would hold
    /// them); the others are dropped and read again if needed.
    pub(super) fn followed_by(
        mut self,
        chunk: impl IntoIterator<Item = TailEntry<B>>,
        window: usize,
        memory: usize,
    ) -> Self {
        self.entries.extend(chunk);
        let excess = self.entries.len().saturating_sub(window);
        self.entries.drain(..excess);
        let mut held = BodyBudget::new(memory);
        for entry in self.entries.iter_mut().rev() {
            let size = entry.body.as_ref().map_or(0, |b| b.as_ref().len() as u64);
            if !held.admits(entry.kind, size) {
                entry.body = None;
            }
        }
        self
    }
}

/// The bytes of bodies of each type a window holds, newest first (git's
/// `--window-memory`, per type as the passes keep one window per type):
/// an object is held while its type's total before it is within the
/// limit; objects too small to be a base do not count.
pub(super) struct BodyBudget {
    memory: usize,
    held: Vec<(ObjectKind, u64)>,
}

impl BodyBudget {
    pub(super) fn new(memory: usize) -> Self {
        BodyBudget {
            memory,
            held: Vec::new(),
        }
    }

    /// Whether an object of `kind` whose body is `size` bytes is held, the
    /// newer ones counted already; counts it if so.
    pub(super) fn admits(&mut self, kind: ObjectKind, size: u64) -> bool {
        let open = self.open(kind);
        if open {
            self.count(kind, size);
        }
        open
    }

    /// Whether the next object of `kind` is held: its type's total is
    /// within the limit.
    pub(super) fn open(&mut self, kind: ObjectKind) -> bool {
        let at = self.slot(kind);
        self.held[at].1 <= self.memory as u64
    }

    /// Counts a held object of `kind` whose body is `size` bytes.
    pub(super) fn count(&mut self, kind: ObjectKind, size: u64) {
        if size >= WINDOW_MIN_SIZE as u64 {
            let at = self.slot(kind);
            self.held[at].1 += size;
        }
    }

    fn slot(&mut self, kind: ObjectKind) -> usize {
        match self.held.iter().position(|&(k, _)| k == kind) {
            Some(at) => at,
            None => {
                self.held.push((kind, 0));
                self.held.len() - 1
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at: u32, size: usize) -> TailEntry<Vec<u8>> {
        TailEntry {
            at,
            kind: ObjectKind::Blob,
            depth: at % 3,
            body: Some(vec![0; size]),
            sketch: None,
        }
    }

    #[test]
    fn a_tail_keeps_the_last_window_and_bodies_within_memory() {
        let tail = Tail::empty().followed_by((0..5).map(|at| entry(at, 100)), 3, 150);
        let ats: Vec<u32> = tail.entries.iter().map(|e| e.at).collect();
        assert_eq!(ats, [2, 3, 4]);
        // Newest first: 4 (100 held), 3 (200 held), then 2 is over 150.
        let kept: Vec<bool> = tail.entries.iter().map(|e| e.body.is_some()).collect();
        assert_eq!(kept, [false, true, true]);
        let next = tail.followed_by([entry(9, 10)], 3, 150);
        let ats: Vec<u32> = next.entries.iter().map(|e| e.at).collect();
        assert_eq!(ats, [3, 4, 9]);
        assert_eq!(next.depths()[&4], 1);
    }

    #[test]
    fn a_written_tail_needs_every_chain_length() {
        let before = (0..10u32).map(|at| (at, ObjectKind::Tree));
        let tail = Tail::<Vec<u8>>::of_written(before.clone(), 4, Some).unwrap();
        let got: Vec<(u32, u32)> = tail.entries.iter().map(|e| (e.at, e.depth)).collect();
        assert_eq!(got, [(6, 6), (7, 7), (8, 8), (9, 9)]);
        assert!(tail.entries.iter().all(|e| e.body.is_none()));
        let missing = Tail::<Vec<u8>>::of_written(before, 4, |at| (at != 8).then_some(0));
        assert_eq!(missing.err(), Some(8));
    }
}
