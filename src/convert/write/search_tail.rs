//! The objects before a chunk in a write pass's order that a search window
//! would still hold, with the chain length each was written with: what the
//! window search of the chunk starts from (`piece_search.rs`).
//!
//! A chunk's windows do not continue the windows the chunk before ended
//! with: those hold the history of the whole pass (which slots git's
//! `find_deltas` moved to the front, which bases it indexed), which a
//! resumed run could not rebuild. This list is a function of the pass's
//! order, the chains written and the bodies' sizes alone: of each type,
//! the newest `--window` objects a window keeps (chains shorter than
//! `--depth`, bodies of at least [`WINDOW_MIN_SIZE`] bytes), newest first
//! within `--window-memory`. So a run resumed at any chunk starts it as a
//! run that was never interrupted does, from SOURCE's bodies and the chain
//! lengths read back from the segments (`output_depths.rs`), and redoes at
//! most one chunk.
//!
//! Objects whose chain is at the limit take no slot, as in git's window:
//! in a long run of versions of one file, the versions whose chains reached
//! the limit all become deltas of the same few shorter ones, which stay in
//! the window however many of those follow (tokio's 1.3 MB benchmark data
//! file: counting those versions too lost the shorter ones, and one
//! version was stored whole, 156 KB).

use std::collections::HashMap;

use crate::object::ObjectKind;
use crate::pack::{Sketch, WINDOW_MIN_SIZE, WindowOptions};

/// The objects a chunk's windows start from, oldest first.
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
    /// Its body's length.
    pub len: u64,
    /// Its body, if the pass still held it.
    pub body: Option<B>,
    /// Its sketch, if one was made.
    pub sketch: Option<Sketch>,
}

/// Why [`Tail::of_written`] could not build a tail.
pub enum WrittenTailError<E> {
    /// The chain length of this object (a table index) is not known.
    UnknownDepth(u32),
    /// Reading a body failed.
    Read(E),
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
    /// segments); `fetch` reads the bodies the tail holds, whose lengths
    /// `len` gives as the pass counts them.
    pub fn of_written<E>(
        before: impl DoubleEndedIterator<Item = (u32, ObjectKind)>,
        opts: WindowOptions,
        depth: impl Fn(u32) -> Option<u32>,
        fetch: impl Fn(u32) -> Result<B, E>,
        len: impl Fn(u32, &B) -> u64,
    ) -> Result<Self, WrittenTailError<E>> {
        let mut held = Held::new(opts);
        let mut entries = Vec::new();
        for (at, kind) in before.rev() {
            if held.is_closed(kind) {
                continue;
            }
            let depth = depth(at).ok_or(WrittenTailError::UnknownDepth(at))?;
            if !held.may_hold(kind, depth) {
                continue;
            }
            let body = fetch(at).map_err(WrittenTailError::Read)?;
            let len = len(at, &body);
            if held.holds(kind, len) {
                entries.push(TailEntry {
                    at,
                    kind,
                    depth,
                    len,
                    body: Some(body),
                    sketch: None,
                });
            }
        }
        entries.reverse();
        Ok(Tail { entries })
    }

    /// The chain length of each object it holds.
    pub(super) fn depths(&self) -> HashMap<u32, u32> {
        self.entries.iter().map(|e| (e.at, e.depth)).collect()
    }

    /// The tail after `chunk` (its objects in order, with their true chain
    /// lengths), by the same rule as [`Tail::of_written`].
    pub(super) fn followed_by(self, chunk: Vec<TailEntry<B>>, opts: WindowOptions) -> Self {
        let mut held = Held::new(opts);
        let mut entries = Vec::new();
        let newest_first = chunk
            .into_iter()
            .rev()
            .chain(self.entries.into_iter().rev());
        for entry in newest_first {
            if held.may_hold(entry.kind, entry.depth) && held.holds(entry.kind, entry.len) {
                entries.push(entry);
            }
        }
        entries.reverse();
        Tail { entries }
    }
}

/// What the windows hold so far, going from the newest object back: as
/// git's window, at most `--window` objects of each type and, newest
/// first, as long as their bodies are within `--window-memory`.
pub(super) struct Held {
    opts: WindowOptions,
    /// By type: objects and bytes held.
    kinds: Vec<(ObjectKind, usize, u64)>,
}

impl Held {
    pub(super) fn new(opts: WindowOptions) -> Self {
        Held {
            opts,
            kinds: Vec::new(),
        }
    }

    fn slot(&mut self, kind: ObjectKind) -> &mut (ObjectKind, usize, u64) {
        let at = match self.kinds.iter().position(|&(k, ..)| k == kind) {
            Some(at) => at,
            None => {
                self.kinds.push((kind, 0, 0));
                self.kinds.len() - 1
            }
        };
        &mut self.kinds[at]
    }

    /// Whether the window of `kind` takes no older object: it is full, or
    /// past its memory.
    pub(super) fn is_closed(&mut self, kind: ObjectKind) -> bool {
        let (window, memory) = (self.opts.window, self.opts.memory as u64);
        let &mut (_, objects, bytes) = self.slot(kind);
        objects >= window || bytes > memory
    }

    /// Whether a window could still take an object of `kind` whose chain
    /// is `depth` long: one at the limit is no base.
    pub(super) fn may_hold(&mut self, kind: ObjectKind, depth: u32) -> bool {
        depth < self.opts.depth && !self.is_closed(kind)
    }

    /// Whether the window of `kind` takes an object whose body is `len`
    /// bytes (one too small to be a base takes no slot); counts it if so.
    pub(super) fn holds(&mut self, kind: ObjectKind, len: u64) -> bool {
        if len < WINDOW_MIN_SIZE as u64 {
            return false;
        }
        let slot = self.slot(kind);
        slot.1 += 1;
        slot.2 += len;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::Tries;

    fn opts(window: usize, depth: u32, memory: usize) -> WindowOptions {
        WindowOptions {
            window,
            depth,
            memory,
            id_len: 32,
            tries: Tries::Every,
        }
    }

    fn entry(at: u32, depth: u32, len: usize) -> TailEntry<Vec<u8>> {
        TailEntry {
            at,
            kind: ObjectKind::Blob,
            depth,
            len: len as u64,
            body: Some(vec![0; len]),
            sketch: None,
        }
    }

    fn ats<B>(tail: &Tail<B>) -> Vec<u32> {
        tail.entries.iter().map(|e| e.at).collect()
    }

    #[test]
    fn a_tail_holds_what_a_window_would() {
        let opts = opts(3, 10, 250);
        let tail = Tail::empty().followed_by((0..5).map(|at| entry(at, 0, 100)).collect(), opts);
        // Newest first: 4 (100 held), 3 (200), 2 (300, past the memory);
        // 1 is left out.
        assert_eq!(ats(&tail), [2, 3, 4]);
        // Chains at the limit and bodies too small to be bases take no
        // slot: 1 comes back, older than them.
        let mut tail = Tail::empty().followed_by((0..3).map(|at| entry(at, 0, 60)).collect(), opts);
        tail = tail.followed_by(
            vec![entry(7, 10, 60), entry(8, 1, 20), entry(9, 2, 60)],
            opts,
        );
        assert_eq!(ats(&tail), [1, 2, 9]);
        assert_eq!(tail.depths()[&9], 2);
    }

    #[test]
    fn a_written_tail_is_the_tail_the_pass_handed_on() {
        let opts = opts(4, 3, usize::MAX);
        let depth = |at: u32| Some(at % 4);
        let len = |at: u32| 50 + at as usize % 3 * 10;
        let chunk = |range: std::ops::Range<u32>| {
            range
                .map(|at| entry(at, depth(at).unwrap(), len(at)))
                .collect()
        };
        let handed = Tail::empty()
            .followed_by(chunk(0..6), opts)
            .followed_by(chunk(6..11), opts);
        let before = (0..11u32).map(|at| (at, ObjectKind::Blob));
        let fetch = |at: u32| Ok::<_, ()>(vec![0u8; len(at)]);
        let body_len = |_, body: &Vec<u8>| body.len() as u64;
        let Ok(written) = Tail::of_written(before.clone(), opts, depth, fetch, body_len) else {
            panic!("every chain is known");
        };
        assert_eq!(ats(&written), ats(&handed));
        assert_eq!(ats(&written), [6, 8, 9, 10]);
        let unknown = |at: u32| (at != 9).then_some(0);
        let missing = Tail::of_written(before, opts, unknown, fetch, body_len);
        assert!(matches!(missing, Err(WrittenTailError::UnknownDepth(9))));
    }
}
