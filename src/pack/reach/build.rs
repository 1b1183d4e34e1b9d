//! The bitmap of each selected commit: every object it reaches, as bits in
//! pack order.
//!
//! Commits are built oldest generation first, so a commit's selected
//! ancestors are done before it, and their bitmaps are OR-ed in instead of
//! walked again. The walk pops commits by generation, newest first, so a
//! selected ancestor is met (and OR-ed in) before anything it reaches:
//! each build walks only the commits between the commit and its nearest
//! selected ancestors, then the trees of those commits that the OR-ed
//! bitmaps do not already hold. A set bit always means "this object and
//! everything it reaches", which is what lets a walk stop there.

use std::collections::BinaryHeap;

use super::ewah::Ewah;
use super::graph::Graph;
use crate::object::ObjectKind;

/// Generation numbers: 1 for a root commit, else one more than the
/// largest of its parents'; 0 for objects that are not commits.
pub fn generations(graph: &Graph) -> Vec<u32> {
    let n = graph.len();
    let mut generation = vec![0u32; n];
    // Iterative post-order over the parent links: a commit's number is set
    // once all its parents have theirs.
    let mut stack: Vec<(u32, bool)> = Vec::new();
    for start in 0..n as u32 {
        if graph.kinds[start as usize] != ObjectKind::Commit || generation[start as usize] != 0 {
            continue;
        }
        stack.push((start, false));
        while let Some((c, expanded)) = stack.pop() {
            if generation[c as usize] != 0 {
                continue;
            }
            if expanded {
                let top = graph
                    .parents(c)
                    .map(|p| generation[p as usize])
                    .max()
                    .unwrap_or(0);
                generation[c as usize] = top + 1;
            } else {
                stack.push((c, true));
                for p in graph.parents(c) {
                    if generation[p as usize] == 0 {
                        stack.push((p, false));
                    }
                }
            }
        }
    }
    generation
}

/// Builds the bitmaps of `selected`; returns them in build order (oldest
/// generation first) with their commit's position.
pub fn build(
    graph: &Graph,
    generation: &[u32],
    selected: &[u32],
    mut advance: impl FnMut(),
) -> Vec<(u32, Ewah)> {
    let mut order = selected.to_vec();
    order.sort_by_key(|&p| (generation[p as usize], p));
    order.dedup();
    let mut built_slot = vec![u32::MAX; graph.len()];
    let mut built: Vec<(u32, Ewah)> = Vec::with_capacity(order.len());
    let mut dense = vec![0u64; graph.len().div_ceil(64)];
    let mut heap = BinaryHeap::new();
    let mut new_commits = Vec::new();
    let mut stack = Vec::new();
    let mut reached = Vec::new();
    for &commit in &order {
        dense.fill(0);
        let is_set = |dense: &[u64], p: u32| dense[p as usize / 64] >> (p % 64) & 1 == 1;
        let set = |dense: &mut [u64], p: u32| dense[p as usize / 64] |= 1 << (p % 64);
        heap.push((generation[commit as usize], commit));
        while let Some((_, c)) = heap.pop() {
            if is_set(&dense, c) {
                continue;
            }
            let slot = built_slot[c as usize];
            if slot != u32::MAX {
                built[slot as usize].1.or_into(&mut dense);
                continue;
            }
            set(&mut dense, c);
            new_commits.push(c);
            for p in graph.parents(c) {
                if !is_set(&dense, p) {
                    heap.push((generation[p as usize], p));
                }
            }
        }
        for c in new_commits.drain(..) {
            stack.extend(
                graph
                    .children(c)
                    .iter()
                    .copied()
                    .filter(|&t| graph.kinds[t as usize] != ObjectKind::Commit),
            );
            while let Some(o) = stack.pop() {
                if is_set(&dense, o) {
                    continue;
                }
                set(&mut dense, o);
                graph.children_into(o, &mut reached);
                stack.extend(reached.iter().copied().filter(|&t| !is_set(&dense, t)));
            }
        }
        built_slot[commit as usize] = built.len() as u32;
        built.push((commit, Ewah::from_words(&dense)));
        advance();
    }
    built
}
