//! Dependency order for the map pass: waves of trees, commits and tags
//! whose references are all named already (Kahn's algorithm), and whose
//! source delta base is too, where waiting for it closes no ring with
//! references.
//!
//! Objects within one wave do not depend on each other, so a wave can be
//! translated in parallel. A commit whose `mergetag` names a tag simply
//! lands in a wave after that tag.

use rayon::prelude::*;

use crate::convert::error::ConvertError;
use crate::convert::error::CorruptInput;
use crate::convert::source_objects::table::{Location, ObjectTable};
use crate::object::ObjectKind;

/// The waves, in order; every tree, commit and tag without a map row
/// appears exactly once. `edges` are references (a tree's entries, a
/// commit's tree, parents and mergetags, a tag's target); `delta_edges`
/// pair an object with the base SOURCE stores it as a delta of, so that
/// the base is named first and the delta can name it. References decide;
/// delta edges yield where they would close a cycle with them: when no
/// object is free, those waiting only for a delta base are let go (the
/// map pass then stores them whole).
pub fn waves(
    table: &ObjectTable,
    edges: &mut Vec<(u32, u32)>,
    delta_edges: &[(u32, u32)],
) -> Result<Vec<Vec<u32>>, ConvertError> {
    // Blobs are named during the scan and objects converted by an earlier
    // run are named by the map: neither holds anything up. Objects an
    // interrupted run wrote are planned again like new ones, so that the
    // waves are those of a run that was never interrupted.
    edges.retain(|&(_, dep)| table.dest_id(dep).is_none() || needs_translation(table, dep));
    // Millions of edges on a large repository, sorted between the scan
    // and the write phase while nothing else runs: on every core.
    edges.par_sort_unstable_by_key(|&(_, dep)| dep);
    edges.dedup();

    let n = table.len();
    // What each object waits for: references, and at most one delta base.
    let mut pending = vec![0u32; n];
    for &(dependent, _) in edges.iter() {
        pending[dependent as usize] += 1;
    }
    let mut waits_for_base = vec![false; n];
    for &(dependent, _) in delta_edges {
        waits_for_base[dependent as usize] = true;
    }
    let mut delta_dependents = delta_edges.to_vec();
    delta_dependents.par_sort_unstable_by_key(|&(_, base)| base);
    let by_dep = |list: &[(u32, u32)]| {
        // CSR adjacency: dependents of `d` are list[start[d]..start[d + 1]].
        let mut start = vec![0usize; n + 1];
        for &(_, dep) in list {
            start[dep as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        start
    };
    let (start, delta_start) = (by_dep(edges), by_dep(&delta_dependents));
    let free = |i: usize, pending: &[u32], waits: &[bool]| pending[i] == 0 && !waits[i];

    let mut current: Vec<u32> = table
        .indices()
        .filter(|&i| needs_translation(table, i) && free(i as usize, &pending, &waits_for_base))
        .collect();
    let to_translate = table
        .indices()
        .filter(|&i| needs_translation(table, i))
        .count();
    // Objects whose references are all placed but whose delta base is not:
    // what a stall lets go. Each enters once, when its last reference is
    // placed, so stalls cost what they release, not a scan of the table.
    let mut blocked: Vec<u32> = table
        .indices()
        .filter(|&i| {
            let i = i as usize;
            needs_translation(table, i as u32) && pending[i] == 0 && waits_for_base[i]
        })
        .collect();
    let mut waves = Vec::new();
    let mut placed = 0usize;
    loop {
        if current.is_empty() {
            if placed == to_translate {
                break;
            }
            // Only delta bases can be waited for in a ring with references:
            // let those objects go (those whose base was placed since are
            // on their way already).
            current = blocked
                .drain(..)
                .filter(|&i| waits_for_base[i as usize])
                .collect();
            if current.is_empty() {
                // Objects that reference each other in a cycle, which
                // content addressing rules out for honest data.
                let stuck = table
                    .indices()
                    .find(|&i| pending[i as usize] > 0)
                    .expect("some object is still pending");
                return Err(CorruptInput::ReferenceCycle {
                    id: table.source_id(stuck),
                }
                .into());
            }
            for &i in &current {
                waits_for_base[i as usize] = false;
            }
        }
        let mut next = Vec::new();
        for &done in &current {
            let done = done as usize;
            for &(dependent, _) in &edges[start[done]..start[done + 1]] {
                let d = dependent as usize;
                pending[d] -= 1;
                if free(d, &pending, &waits_for_base) {
                    next.push(dependent);
                } else if pending[d] == 0 {
                    blocked.push(dependent);
                }
            }
            for &(dependent, _) in &delta_dependents[delta_start[done]..delta_start[done + 1]] {
                let d = dependent as usize;
                // Let go already (a ring), or placed: nothing to wait for.
                if waits_for_base[d] {
                    waits_for_base[d] = false;
                    if free(d, &pending, &waits_for_base) {
                        next.push(dependent);
                    }
                }
            }
        }
        placed += current.len();
        // Source order within a wave: a delta's base precedes it in its
        // pack, so the map pass finds bases in its delta cache instead of
        // walking each chain from the top (SHA-1 order is random access).
        current.par_sort_unstable_by_key(|&i| source_order(table, i));
        waves.push(std::mem::replace(&mut current, next));
    }
    Ok(waves)
}

/// Trees, commits and tags this run plans: not converted by an earlier
/// run, or written by one that was interrupted.
fn needs_translation(table: &ObjectTable, i: u32) -> bool {
    table.kind(i) != Some(ObjectKind::Blob) && table.is_planned(i)
}

/// (pack, offset) of a packed object; loose objects last, by table index.
fn source_order(table: &ObjectTable, i: u32) -> (u32, u64) {
    match table.location(i) {
        Location::Packed { pack, offset } => (pack, offset),
        Location::Loose { .. } => (u32::MAX, u64::from(i)),
    }
}
