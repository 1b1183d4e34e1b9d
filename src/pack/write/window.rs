//! The sliding-window delta search of `git pack-objects` (`find_deltas`,
//! `try_delta` and `type_size_sort` in `builtin/pack-objects.c`).
//!
//! Objects of one type are sorted by name hash, then by size, largest
//! first; each is diffed against the `window` objects before it in that
//! order and keeps the smallest delta found, provided the base's chain is
//! shorter than `depth`. Since a base always comes earlier in the sorted
//! order, each object's depth is final when it is decided, and chains can
//! never form cycles. Only the window's bodies and their indexes are held
//! in memory; the caller supplies bodies on demand and receives each chosen
//! delta through a sink, in sorted order.

use std::collections::VecDeque;

use super::delta_encode::DeltaIndex;

/// One object to place: `name_hash` as git's `pack_name_hash` of its path
/// (0 when unknown), `size` its body length.
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
    /// Width of the object names, for git's `trg_size / 2 - rawsz` limit.
    pub id_len: usize,
}

/// What the search chose for one object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Choice {
    /// Index (into the input list) of the delta base, if any.
    pub base: Option<u32>,
    /// Length of the delta chain ending here (0 for a whole object).
    pub depth: u32,
}

/// git's `pack_name_hash`: a hash of a path that sorts files of the same
/// name (the last 16 or so characters weigh most) together.
pub fn pack_name_hash(name: &[u8]) -> u32 {
    let mut hash = 0u32;
    for &c in name {
        if c.is_ascii_whitespace() {
            continue;
        }
        hash = (hash >> 2).wrapping_add(u32::from(c) << 24);
    }
    hash
}

struct Slot {
    at: u32,
    depth: u32,
    index: DeltaIndex<Vec<u8>>,
}

/// Runs the search over `objects` (all of one type). `body(i)` returns the
/// bytes of object `i`; `sink(i, base, delta)` receives each delta chosen
/// (in sorted order, so a base's own choice has always been reported
/// before). Returns one [`Choice`] per object.
pub fn search<E>(
    objects: &[WindowObject],
    opts: WindowOptions,
    mut body: impl FnMut(u32) -> Result<Vec<u8>, E>,
    mut sink: impl FnMut(u32, u32, Vec<u8>) -> Result<(), E>,
) -> Result<Vec<Choice>, E> {
    let mut order: Vec<u32> = (0..objects.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (objects[a as usize], objects[b as usize]);
        y.name_hash
            .cmp(&x.name_hash)
            .then(y.size.cmp(&x.size))
            .then(a.cmp(&b))
    });
    let mut choices = vec![Choice::default(); objects.len()];
    let mut window: VecDeque<Slot> = VecDeque::with_capacity(opts.window + 1);
    for &at in &order {
        let target = body(at)?;
        let mut best: Option<(u32, u32, Vec<u8>)> = None; // (base, depth, delta)
        if opts.depth > 0 {
            // Most recent first: the nearest in sort order is the likeliest.
            for slot in window.iter().rev() {
                if let Some(delta) = try_delta(slot, &target, best.as_ref(), opts) {
                    best = Some((slot.at, slot.depth + 1, delta));
                }
            }
        }
        if let Some((base, depth, delta)) = best {
            choices[at as usize] = Choice {
                base: Some(base),
                depth,
            };
            sink(at, base, delta)?;
        }
        if opts.window == 0 {
            continue;
        }
        if window.len() == opts.window {
            window.pop_front();
        }
        window.push_back(Slot {
            at,
            depth: choices[at as usize].depth,
            index: DeltaIndex::new(target),
        });
    }
    Ok(choices)
}

/// git's `try_delta`: the size limits that make a delta worth keeping.
fn try_delta(
    slot: &Slot,
    target: &[u8],
    best: Option<&(u32, u32, Vec<u8>)>,
    opts: WindowOptions,
) -> Option<Vec<u8>> {
    if slot.depth >= opts.depth {
        return None;
    }
    let trg_size = target.len() as u64;
    let src_size = slot.index.base().len() as u64;
    let (max_size, ref_depth) = match best {
        None => ((trg_size / 2).saturating_sub(opts.id_len as u64), 1),
        // Must beat the delta we have; strictly smaller, as git.
        Some((_, depth, delta)) => ((delta.len() as u64).saturating_sub(1), *depth),
    };
    let max_size = max_size * u64::from(opts.depth - slot.depth)
        / u64::from(opts.depth - ref_depth.min(opts.depth) + 1);
    if max_size == 0 {
        return None;
    }
    let sizediff = trg_size.saturating_sub(src_size);
    if sizediff >= max_size || trg_size < src_size / 32 {
        return None;
    }
    slot.index
        .encode(target, usize::try_from(max_size).unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::apply_delta;

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
            WindowOptions {
                window,
                depth,
                id_len: 32,
            },
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
            assert!(choices.iter().any(|c| c.depth == depth));
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
    fn name_hash_matches_git() {
        // Values from git's pack_name_hash (pack-objects.h).
        assert_eq!(pack_name_hash(b""), 0);
        assert_eq!(pack_name_hash(b"a"), u32::from(b'a') << 24);
        assert_eq!(pack_name_hash(b"a b"), pack_name_hash(b"ab"));
    }
}
