//! A ref selection (`--refs`, `--exclude-refs`, `--reachable-only`): DEST
//! holds what the selected refs and `HEAD` reach, and nothing else. Right
//! after the scan, before anything can refuse, one walk from those refs
//! down the scan's edges (which hold a tree's file entries too under a
//! selection) finds what they reach; every new object it does not reach
//! is left out (`ObjectTable::leave_out`: not written, not named, no map
//! row), and so is what the scan found wrong with it (a missing object it
//! names, an unmapped gitlink, a lost mergetag target).
//!
//! A tree whose file entries were shared with its delta base was recorded
//! without them (the base's edges hold them). When such a tree is reached
//! and its base is not, the tree alone is read again for its file entries.
//! Objects an earlier run converted are not walked: the map is closed
//! under references, so what they reach is converted already.

use rayon::prelude::*;

use super::edge_index::EdgeIndex;
use super::reaching_refs::RefRoots;
use crate::convert::context::Run;
use crate::convert::error::ConvertError;
use crate::convert::error::findings::MissingReference;
use crate::convert::scan::ScanOutcome;
use crate::convert::source_objects::read_cache;
use crate::convert::source_objects::table::{ObjectTable, well_known_pair};
use crate::object::{ObjectKind, ReferenceRole, TreeMode, tree_entries};

/// Leaves out every new object the refs of `roots` do not reach, and what
/// the scan found of it; returns how many objects were left out.
pub fn leave_out_unreached(
    run: &Run<'_>,
    table: &mut ObjectTable,
    scanned: &mut ScanOutcome,
    roots: &RefRoots,
) -> Result<u64, ConvertError> {
    run.progress
        .start("finding what the selected refs reach", None);
    let mut reached = {
        let edges = EdgeIndex::sort(&mut scanned.edges, table.len());
        walk(&edges, table, roots)
    };
    let mut lone: Vec<u32> = scanned
        .leaned
        .iter()
        .filter(|&&(tree, base)| reached[tree as usize] && !reached[base as usize])
        .map(|&(tree, _)| tree)
        .collect();
    lone.sort_unstable();
    lone.dedup();
    let found = file_entries(run, table, &lone)?;
    for (blobs, missing) in found {
        for blob in blobs {
            reached[blob as usize] = true;
        }
        scanned.missing.extend(missing);
    }

    let holds = |at: Option<u32>| at.is_some_and(|at| reached[at as usize]);
    scanned.missing.retain(|m| holds(table.find(&m.holder)));
    scanned.gitlinks.retain(|g| reached[g.tree as usize]);
    scanned.mergetags.retain(|m| reached[m.commit as usize]);
    // An object an interrupted run wrote keeps its edges whether or not
    // a selected ref still reaches it: it is planned again all the same.
    scanned
        .edges
        .retain(|&(dependent, _)| reached[dependent as usize] || table.is_carried(dependent));
    scanned.leaned = Vec::new();
    let mut left_out = 0;
    for at in table.indices() {
        if table.is_new(at) && !reached[at as usize] {
            table.leave_out(at);
            left_out += 1;
        }
    }
    run.progress.finish();
    Ok(left_out)
}

/// What the refs reach: every object on a path from one of them, down to
/// objects without edges (blobs, and objects converted by an earlier run).
fn walk(edges: &EdgeIndex<'_>, table: &ObjectTable, roots: &RefRoots) -> Vec<bool> {
    let mut reached = vec![false; table.len()];
    let mut stack: Vec<u32> = roots.indices().collect();
    while let Some(at) = stack.pop() {
        if std::mem::replace(&mut reached[at as usize], true) {
            continue;
        }
        stack.extend(edges.references(at).filter(|&dep| !reached[dep as usize]));
    }
    reached
}

/// A tree's file entries: the blobs they name, and those SOURCE lacks.
type FileEntries = (Vec<u32>, Vec<MissingReference>);

/// The file entries of `trees`, read again.
fn file_entries(
    run: &Run<'_>,
    table: &ObjectTable,
    trees: &[u32],
) -> Result<Vec<FileEntries>, ConvertError> {
    trees
        .par_iter()
        .map(|&tree| {
            let mut body = Vec::new();
            read_cache::read(run.inventory, table, tree, &mut body)?;
            let mut blobs = Vec::new();
            let mut missing = Vec::new();
            for entry in tree_entries(&body, table.direction().source()) {
                // The scan parsed this tree whole already.
                let Ok(entry) = entry else { break };
                if !TreeMode::parse(entry.mode).is_blob() {
                    continue;
                }
                match table.find(&entry.id) {
                    Some(blob) => blobs.push(blob),
                    None if well_known_pair(&entry.id).is_some() => {}
                    None => missing.push(MissingReference {
                        holder: table.source_id(tree),
                        holder_kind: ObjectKind::Tree,
                        missing: entry.id,
                        role: ReferenceRole::TreeEntry { gitlink: false },
                        reached_from: Default::default(),
                    }),
                }
            }
            Ok((blobs, missing))
        })
        .collect()
}
