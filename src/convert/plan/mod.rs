//! Between the scan and the writes: with a ref selection, what the
//! selected refs do not reach left out (`selection.rs`); everything that
//! can still refuse the input (missing objects, unmapped mergetags and
//! gitlinks, ref targets), each named with the refs that reach it
//! (`reaching_refs.rs`); then the dependency order in which the rest is
//! written.

pub mod edge_index;
pub mod gitlink_names;
pub mod gitlinks;
pub mod mergetags;
pub mod reaching_refs;
pub mod schedule;
pub mod selection;
pub mod source_pairs;

use std::path::Path;

use super::context::Run;
use super::error::ConvertError;
use super::scan;
use super::source_objects::table::{ObjectTable, well_known_pair};
use crate::convert::error::Refusal;
use crate::convert::error::findings::MissingReference;
use crate::hash::ObjectId;
use crate::pack::PackLayout;
use crate::refs;
use edge_index::EdgeIndex;
use reaching_refs::{RefReach, RefRoots};
use source_pairs::SourcePairs;

/// What the writes start from.
pub struct Planned {
    pub scanned: scan::ScanOutcome,
    /// Trees, commits and tags in dependency order (`schedule.rs`).
    pub waves: Vec<Vec<u32>>,
    /// SOURCE's delta pairing, reused by the write passes.
    pub pairs: SourcePairs,
    pub gitlink_targets: gitlink_names::GitlinkTargets,
    /// Objects SOURCE holds that the ref selection does not reach.
    pub left_out: u64,
}

/// [`plan`], with the packs' whole-file checks (one sequential pass over
/// each file) beside it rather than before it, on whichever thread is
/// free; nothing is written before both end, and a failed check is the
/// error reported even when the scan also failed (it explains why).
pub fn plan_beside_checks(
    run: &Run<'_>,
    table: &mut ObjectTable,
    source_refs: &refs::SourceRefs,
    scan_checkpoint: &Path,
) -> Result<Planned, ConvertError> {
    let (verified, planned) = rayon::join(
        || run.inventory.verify(),
        || plan(run, table, source_refs, scan_checkpoint),
    );
    verified.and(planned)
}

/// Everything that can refuse the input, before anything is written: the
/// scan (names, collisions, structure), what a ref selection leaves out,
/// missing objects, unmapped mergetags and gitlinks, ref targets; then
/// the dependency order of what is new. `source_refs` are the refs the
/// run carries (the selected ones).
pub fn plan(
    run: &Run<'_>,
    table: &mut ObjectTable,
    source_refs: &refs::SourceRefs,
    scan_checkpoint: &Path,
) -> Result<Planned, ConvertError> {
    let mut scanned = scan::scan(run, table, scan_checkpoint)?;
    let roots = RefRoots::new(source_refs, table);
    let left_out = match run.selection {
        Some(_) => selection::leave_out_unreached(run, table, &mut scanned, &roots)?,
        None => 0,
    };
    let reach = |edges| RefReach {
        edges,
        roots: &roots,
        selection: run.selection,
    };
    if !scanned.missing.is_empty() {
        let edges = EdgeIndex::sort(&mut scanned.edges, table.len());
        return Err(missing_objects(
            &reach(edges),
            table,
            std::mem::take(&mut scanned.missing),
        ));
    }
    let gitlink_targets = gitlink_names::resolve_gitlinks(run, table, &mut scanned.gitlinks)?;
    let recorded_verbatim = match run.source_map {
        Some(source_map) => {
            table.set_recorded_tag_names(source_map.tag_names(table)?);
            source_map.verbatim_mergetags(table)?
        }
        None => Vec::new(),
    };
    let edges = EdgeIndex::sort(&mut scanned.edges, table.len());
    let reach = reach(edges);
    mergetags::settle(
        run.opts.unmapped_mergetags,
        table,
        &scanned.mergetags,
        &recorded_verbatim,
        &reach,
    )?;
    if !scanned.gitlinks.is_empty() {
        let found = gitlinks::Recorded {
            inventory: run.inventory,
            table,
            edges: &reach.edges,
        };
        return Err(gitlinks::unmapped_gitlinks_error(
            found,
            &reach,
            &scanned.gitlinks,
        ));
    }
    for (refname, id) in required_ref_targets(source_refs) {
        if table.find(&id).is_none() && well_known_pair(&id).is_none() {
            return Err(Refusal::MissingRefTarget { refname, id }.into());
        }
    }
    run.progress.start("planning the writes", None);
    let layouts = run
        .inventory
        .packs
        .iter()
        .map(PackLayout::new)
        .collect::<Result<Vec<_>, _>>()?;
    let pairs = SourcePairs::compute(run.inventory, &layouts, table)?;
    // Only a reused pairing needs a base named before its delta: with a
    // search the versions of a directory would otherwise be
    // spread over as many waves as their source chain is long, where the
    // window search, which works within a wave, never compares them.
    let delta_edges = match run.opts.reuses_pairing() {
        true => pairs.delta_edges(table),
        false => Vec::new(),
    };
    let waves = schedule::waves(table, &mut scanned.edges, &delta_edges)?;
    // The waves say all the edges did; they would only weigh on the passes.
    scanned.edges = Vec::new();
    run.progress.finish();
    Ok(Planned {
        scanned,
        waves,
        pairs,
        gitlink_targets,
        left_out,
    })
}

/// The refusal of missing objects, each with the refs that reach one of
/// the objects naming it.
fn missing_objects(
    reach: &RefReach<'_>,
    table: &ObjectTable,
    mut missing: Vec<MissingReference>,
) -> ConvertError {
    missing.sort_by_key(|m| m.missing);
    let mut items: Vec<Vec<u32>> = Vec::new();
    let mut item_of = Vec::with_capacity(missing.len());
    for (k, m) in missing.iter().enumerate() {
        if k == 0 || missing[k - 1].missing != m.missing {
            items.push(Vec::new());
        }
        items
            .last_mut()
            .expect("pushed above")
            .extend(table.find(&m.holder));
        item_of.push(items.len() - 1);
    }
    let (reaching, all) = reach.trace(&items);
    for (m, item) in missing.iter_mut().zip(item_of) {
        m.reached_from = reaching[item].clone();
    }
    Refusal::MissingObjects {
        missing,
        reach: all,
    }
    .into()
}

/// The ids refs must be able to name: every ref, peeled tag and a detached
/// HEAD. Reflogs and pseudo-refs may name pruned objects; those entries are
/// dropped instead.
fn required_ref_targets(refs: &refs::SourceRefs) -> Vec<(String, ObjectId)> {
    let mut out: Vec<_> = refs
        .effective_refs()
        .into_iter()
        .filter_map(|(name, target)| target.id().map(|id| (name, id)))
        .collect();
    if let Some(packed) = &refs.packed {
        for entry in &packed.entries {
            if let Some(peeled) = entry.peeled {
                out.push((format!("{} (peeled)", entry.name), peeled));
            }
        }
    }
    if let Some(id) = refs.head.id() {
        out.push(("HEAD".to_string(), id));
    }
    out
}
