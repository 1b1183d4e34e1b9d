//! Dependency order for the map pass: waves of trees, commits and tags
//! whose references are all named already (Kahn's algorithm).
//!
//! Objects within one wave do not depend on each other, so a wave can be
//! translated in parallel. A commit whose `mergetag` names a tag simply
//! lands in a wave after that tag.

use rayon::prelude::*;

use crate::convert::ConvertError;
use crate::convert::error::CorruptInput;
use crate::convert::objects::table::{Location, ObjectTable};
use crate::object::ObjectKind;

/// The waves, in order; every tree, commit and tag without a map row
/// appears exactly once.
pub fn waves(
    table: &ObjectTable,
    edges: &mut Vec<(u32, u32)>,
) -> Result<Vec<Vec<u32>>, ConvertError> {
    // Blobs are named during the scan and objects converted by an earlier
    // run are named by the map: neither holds anything up.
    edges.retain(|&(_, dep)| table.sha256(dep).is_none());
    // Millions of edges on a large repository, sorted between the scan
    // and the write phase while nothing else runs: on every core.
    edges.par_sort_unstable_by_key(|&(_, dep)| dep);
    edges.dedup();

    let n = table.len();
    let mut pending = vec![0u32; n];
    for &(dependent, _) in edges.iter() {
        pending[dependent as usize] += 1;
    }
    // CSR adjacency: dependents of `d` are edges[start[d]..start[d + 1]].
    let mut start = vec![0usize; n + 1];
    for &(_, dep) in edges.iter() {
        start[dep as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }

    let mut current: Vec<u32> = table
        .indices()
        .filter(|&i| needs_translation(table, i) && pending[i as usize] == 0)
        .collect();
    let mut waves = Vec::new();
    let mut placed = 0usize;
    while !current.is_empty() {
        let mut next = Vec::new();
        for &done in &current {
            for &(dependent, _) in &edges[start[done as usize]..start[done as usize + 1]] {
                let p = &mut pending[dependent as usize];
                *p -= 1;
                if *p == 0 {
                    next.push(dependent);
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
    let to_translate = table
        .indices()
        .filter(|&i| needs_translation(table, i))
        .count();
    if placed != to_translate {
        // Only possible with objects that reference each other in a cycle,
        // which content addressing rules out for honest data.
        let stuck = table
            .indices()
            .find(|&i| pending[i as usize] > 0)
            .expect("some object is still pending");
        return Err(CorruptInput::ReferenceCycle {
            id: table.sha1(stuck),
        }
        .into());
    }
    Ok(waves)
}

/// Trees, commits and tags not converted by an earlier run.
fn needs_translation(table: &ObjectTable, i: u32) -> bool {
    table.kind(i) != Some(ObjectKind::Blob) && !table.is_mapped(i)
}

/// (pack, offset) of a packed object; loose objects last, by table index.
fn source_order(table: &ObjectTable, i: u32) -> (u32, u64) {
    match table.location(i) {
        Location::Packed { pack, offset } => (pack, offset),
        Location::Loose => (u32::MAX, u64::from(i)),
    }
}
