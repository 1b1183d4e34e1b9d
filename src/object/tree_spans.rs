//! Where the entries of a raw tree body lie, and which of them another
//! version of the tree holds unchanged.
//!
//! The walks that compare two versions of a tree (the output's tree
//! deltas, the scan's references) only need each entry's bounds and git's
//! order of names; they do not need the entries decoded.

use std::cmp::Ordering;

use super::find_nul;
use crate::bytes::common_prefix;

/// Where one entry sits in a tree body: `body[start..space]` is the mode,
/// `body[space + 1..nul]` the name, `body[nul + 1..end]` the id.
pub struct Entry {
    pub start: usize,
    pub space: usize,
    pub nul: usize,
    pub end: usize,
}

impl Entry {
    pub fn name<'a>(&self, body: &'a [u8]) -> &'a [u8] {
        &body[self.space + 1..self.nul]
    }

    /// git's `S_ISDIR` on the octal mode, which decides the implicit `/`
    /// that directories sort with.
    pub fn is_dir(&self, body: &[u8]) -> bool {
        crate::object::TreeMode::parse(&body[self.start..self.space]).is_tree()
    }
}

/// The entry that starts at `pos` and ends within `body`, if one does.
pub fn entry_at(body: &[u8], pos: usize, id_len: usize) -> Option<Entry> {
    // Modes are 5 or 6 digits in practice.
    let space = match body.get(pos + 5..pos + 7) {
        Some([b' ', _]) => pos + 5,
        Some([_, b' ']) => pos + 6,
        _ => pos + body.get(pos..)?.iter().position(|&b| b == b' ')?,
    };
    let nul = space + find_nul(&body[space..])?;
    let end = nul + 1 + id_len;
    (end <= body.len()).then_some(Entry {
        start: pos,
        space,
        nul,
        end,
    })
}

/// git's tree order (`base_name_compare`): names compare bytewise, a
/// directory as if its name ended in `/`. Used only to line the two lists
/// up; a tree stored out of order costs copies, never correctness.
pub fn tree_order(a_body: &[u8], a: &Entry, b_body: &[u8], b: &Entry) -> Ordering {
    let (an, bn) = (a.name(a_body), b.name(b_body));
    let common = an.len().min(bn.len());
    match an[..common].cmp(&bn[..common]) {
        Ordering::Equal => {}
        other => return other,
    }
    let next = |name: &[u8], e: &Entry, body: &[u8]| match name.get(common) {
        Some(&c) => c,
        None if e.is_dir(body) => b'/',
        None => 0,
    };
    next(an, a, a_body).cmp(&next(bn, b, b_body))
}

/// Answers, for the entries of a tree taken in order, whether `base`
/// holds the same entry (mode, name and id, byte for byte). Within the
/// bodies' common prefix every entry is its base's; past it, a cursor
/// walks `base` in tree order beside the target. A tree stored out of
/// order only gets fewer answers "yes", never a wrong one.
pub struct SharedEntries<'a> {
    base: &'a [u8],
    target: &'a [u8],
    id_len: usize,
    /// Bytes the two bodies share from the start.
    common: usize,
    /// Where the next base entry to compare starts.
    pos: usize,
}

impl<'a> SharedEntries<'a> {
    pub fn new(base: &'a [u8], target: &'a [u8], id_len: usize) -> Self {
        SharedEntries {
            base,
            target,
            id_len,
            common: common_prefix(base, target),
            pos: 0,
        }
    }

    /// Whether the target's entry at `start..end` is in `base`. Entries
    /// must be asked about in order.
    pub fn contains(&mut self, start: usize, end: usize) -> bool {
        if end <= self.common {
            self.pos = end;
            return true;
        }
        let Some(t) = entry_at(self.target, start, self.id_len) else {
            return false;
        };
        while let Some(b) = entry_at(self.base, self.pos, self.id_len) {
            match tree_order(self.base, &b, self.target, &t) {
                Ordering::Less => self.pos = b.end,
                Ordering::Equal => {
                    let same = self.base[b.start..b.end] == self.target[t.start..t.end];
                    self.pos = b.end;
                    return same;
                }
                Ordering::Greater => return false,
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::testing::random_trees::{E, body, edit, random_tree};
    use crate::testing::rng::Rng;

    /// Every entry of `target` with whether `SharedEntries` says `base`
    /// holds it, and whether it does.
    fn answers(base: &[u8], target: &[u8]) -> Vec<(bool, bool)> {
        answers_to(base, target, |_| true)
    }

    /// [`answers`] for the entries `asked` picks by number, the others
    /// left out.
    fn answers_to(base: &[u8], target: &[u8], asked: impl Fn(usize) -> bool) -> Vec<(bool, bool)> {
        let held: HashSet<&[u8]> = spans(base).map(|e| &base[e.start..e.end]).collect();
        let mut shared = SharedEntries::new(base, target, 20);
        spans(target)
            .enumerate()
            .filter(|(k, _)| asked(*k))
            .map(|(_, e)| {
                let said = shared.contains(e.start, e.end);
                (said, held.contains(&target[e.start..e.end]))
            })
            .collect()
    }

    fn spans(body: &[u8]) -> impl Iterator<Item = Entry> + '_ {
        let mut pos = 0;
        std::iter::from_fn(move || {
            let entry = entry_at(body, pos, 20)?;
            pos = entry.end;
            Some(entry)
        })
    }

    #[test]
    fn in_sorted_trees_every_entry_the_base_holds_is_found() {
        let mut rng = Rng(5);
        for round in 0..300 {
            let base = random_tree(&mut rng, 1 + round % 90);
            let edits = rng.below(8);
            let target = edit(&mut rng, &base, edits);
            let (base, target) = (body(&base, 20), body(&target, 20));
            for (k, (said, held)) in answers(&base, &target).into_iter().enumerate() {
                assert_eq!(said, held, "round {round}, entry {k}");
            }
            let every_third = answers_to(&base, &target, |k| k % 3 == round % 3);
            for (k, (said, held)) in every_third.into_iter().enumerate() {
                assert_eq!(said, held, "round {round}, asked entry {k}");
            }
        }
    }

    #[test]
    fn out_of_order_trees_get_no_wrong_answer() {
        let mut rng = Rng(9);
        for round in 0..200 {
            let mut base = random_tree(&mut rng, 2 + round % 40);
            let edits = rng.below(5);
            let mut target: Vec<E> = edit(&mut rng, &base, edits);
            let (i, j) = (rng.below(base.len()), rng.below(base.len()));
            base.swap(i, j);
            if !target.is_empty() {
                let (i, j) = (rng.below(target.len()), rng.below(target.len()));
                target.swap(i, j);
            }
            let (base, target) = (body(&base, 20), body(&target, 20));
            for (k, (said, held)) in answers(&base, &target).into_iter().enumerate() {
                assert!(!said || held, "round {round}, entry {k}");
            }
        }
    }

    #[test]
    fn a_directory_sorts_as_if_its_name_ended_in_a_slash() {
        let tree = |entries: &[(&'static str, &[u8], u64)]| {
            let entries: Vec<E> = entries
                .iter()
                .map(|&(mode, name, id)| E {
                    mode,
                    name: name.to_vec(),
                    id,
                })
                .collect();
            body(&entries, 20)
        };
        // "a-" < "a/" (a directory) < "a0": a new "a-" and a changed "a0"
        // around the directory must not hide it.
        let base = tree(&[("40000", b"a", 1), ("100644", b"a0", 2)]);
        let target = tree(&[
            ("100644", b"a-", 3),
            ("40000", b"a", 1),
            ("100644", b"a0", 4),
        ]);
        assert_eq!(
            answers(&base, &target),
            [(false, false), (true, true), (false, false)]
        );
    }
}
