//! The last step of a conversion, once every object is stored: refs, the
//! map's SHA-256 index and the pack's bitmap and commit-graph (side by
//! side), `--rekey-notes` (rekey_notes.rs, notes_tree.rs), refs SOURCE no
//! longer has removed (stale_refs.rs), the run recorded complete, the
//! gitlink record and git's compat map (gitlink_record.rs,
//! compat_map.rs), then `HEAD` and `config`: DEST becomes a repository.

pub mod compat_map;
mod gitlink_record;
mod keep_statement;
pub mod notes_tree;
pub mod rekey_notes;
pub mod stale_refs;
mod statement_options;

use std::collections::BTreeSet;
use std::path::Path;

use crate::convert::dest::Dest;
use crate::convert::error::ConvertError;
use crate::convert::finish::reach_indexes::{self, Recorded};
use crate::convert::options::ConvertOptions;
use crate::convert::outcome::{ConvertOutcome, ServingIndexes};
use crate::convert::phase;
use crate::convert::plan::gitlink_names::GitlinkTargets;
use crate::convert::scan;
use crate::convert::source_objects::by_dest_name::ByDestName;
use crate::convert::source_objects::inventory::Inventory;
use crate::convert::source_objects::table::ObjectTable;
use crate::convert::tag_peel;
use crate::hash::{HashKind, ObjectId};
use crate::idmap::{IdMap, RunId};
use crate::pipeline::StopPoints;
use crate::progress::{NoProgress, Progress};
use crate::refs::{self, RefStorage, RefsOutcome, SourceRefs};
use crate::repo::dest_layout;

/// What publishing reads and finishes.
pub struct PublishInputs<'a> {
    pub opts: &'a ConvertOptions,
    pub dest: Dest,
    pub map: IdMap,
    /// This run's row in the journal, closed once everything is durable.
    pub map_run: RunId,
    pub source_refs: &'a SourceRefs,
    pub ref_format: RefStorage,
    pub inventory: &'a Inventory,
    pub table: &'a ObjectTable,
    /// Every object by its SHA-256 name, for the bitmap.
    pub names: &'a ByDestName<'a>,
    /// The map pass's reach records (`rehash/reach-records`).
    pub reach_records: &'a Path,
    pub gitlink_targets: &'a GitlinkTargets,
    pub scan_checkpoint: &'a Path,
    pub stops: &'a StopPoints,
    pub progress: &'a dyn Progress,
}

/// Publishes DEST (see the module documentation).
pub fn publish(
    inputs: PublishInputs<'_>,
    outcome: &mut ConvertOutcome,
) -> Result<(), ConvertError> {
    let PublishInputs {
        opts,
        dest,
        mut map,
        map_run,
        source_refs,
        ref_format,
        inventory,
        table,
        names,
        reach_records,
        gitlink_targets,
        scan_checkpoint,
        stops,
        progress,
    } = inputs;
    let tips: Vec<_> = source_refs
        .tip_ids()
        .filter_map(|id| table.map_source(&id))
        .collect();
    let serving_target = reach_indexes::target(&dest.path, &map)?;
    let recorded = Recorded {
        records: reach_records,
        names,
    };

    progress.start("writing refs, indexing map, bitmap, commit-graph", None);
    stops.check_interrupt()?;
    let refs_before = dest_ref_names(&dest.path, table.direction().dest())?;
    let own_statement = keep_statement::before_refs(&dest.path, &map)?;
    let (refs_done, serving) = SideBySide {
        dest: &dest.path,
        source_refs,
        ref_format,
        inventory,
        table,
        reach: serving_target
            .as_deref()
            .map(|idx| (idx, tips.as_slice(), &recorded)),
    }
    .write(&mut map)?;
    outcome.serving = serving;
    // Read once for the bitmap; a leftover is deleted by the next run.
    let _ = std::fs::remove_file(reach_records);
    let mut ref_files = refs_done.files.clone();
    if opts.rekey_notes {
        // The reverse index, built above, tells created trees from
        // translated ones.
        let rekeyed =
            rekey_notes::rekey_notes(source_refs, inventory, table, &dest.path, &mut map)?;
        let updates: Vec<_> = rekeyed.iter().map(|r| (r.name.clone(), r.commit)).collect();
        ref_files.extend(refs::point_refs(&dest.path, ref_format, &updates)?);
        outcome.interop.notes_rekeyed = rekeyed;
    }
    ref_files.extend(keep_statement::after_refs(
        &dest.path,
        ref_format,
        &map,
        own_statement,
        stops,
    )?);
    stops.kill_point(phase::REFS);
    stale_refs::prune_stale_refs(&dest.path, &ref_files)?;
    let refs_after = dest_ref_names(&dest.path, table.direction().dest())?;
    outcome.refs_deleted = refs_before.difference(&refs_after).count();
    progress.finish();
    outcome.refs_written = refs_done.refs_written;
    outcome.reflog_entries_dropped = refs_done.reflog_entries_dropped;
    outcome.pseudo_refs_dropped = refs_done.pseudo_refs_dropped.clone();

    record_completion(&mut map, opts, map_run, scan_checkpoint, progress)?;
    let mut extensions = gitlink_record::before_publish(
        opts,
        &dest.path,
        table,
        gitlink_targets,
        &mut outcome.interop,
    )?;
    if ref_format == RefStorage::Reftable {
        extensions.push("refstorage = reftable".into());
    }
    stops.kill_point(phase::PUBLISH);
    let config = crate::convert::dest::config(table.direction().dest(), &extensions);
    dest.publish(&refs_done.head, &config)
}

/// The writes that need nothing of each other, side by side: the map's
/// index build (SQLite, mostly one core), the refs (file creation and
/// fdatasync, mostly waiting) and the pack's bitmap and commit-graph (all
/// cores, reading the pack).
struct SideBySide<'a> {
    dest: &'a Path,
    source_refs: &'a SourceRefs,
    ref_format: RefStorage,
    inventory: &'a Inventory,
    table: &'a ObjectTable,
    /// The pack that gets its bitmap and commit-graph, the refs' tips, and
    /// what the map pass recorded of the objects' edges.
    reach: Option<(&'a Path, &'a [ObjectId], &'a Recorded<'a>)>,
}

impl SideBySide<'_> {
    fn write(&self, map: &mut IdMap) -> Result<(RefsOutcome, ServingIndexes), ConvertError> {
        let mapper = |id: &ObjectId| self.table.map_source(id);
        let peel = |id: &ObjectId| tag_peel::peel(self.inventory, self.table, id);
        let (refs_done, indexed, serving) = std::thread::scope(|scope| {
            let index = scope.spawn(|| map.finish_load());
            let (refs, serving) = rayon::join(
                || {
                    refs::write_translated_refs(
                        &self.source_refs.as_converted(),
                        self.dest,
                        self.table.direction().dest(),
                        &mapper,
                        &peel,
                        self.ref_format,
                    )
                },
                || {
                    self.reach
                        .map(|(idx, tips, recorded)| {
                            let pack = (idx, self.table.direction().dest());
                            reach_indexes::write(self.dest, pack, tips, Some(recorded), &NoProgress)
                        })
                        .transpose()
                },
            );
            (
                refs,
                index.join().expect("the index build does not panic"),
                serving,
            )
        });
        let refs_done = refs_done?;
        indexed?;
        Ok((refs_done, serving?))
    }
}

/// The run recorded complete: the map's state and journal, and the scan's
/// checkpoint, which no later run needs.
fn record_completion(
    map: &mut IdMap,
    opts: &ConvertOptions,
    map_run: RunId,
    scan_checkpoint: &Path,
    progress: &dyn Progress,
) -> Result<(), ConvertError> {
    progress.start("recording completion", None);
    statement_options::record(map, opts)?;
    map.set_meta("state", "complete")?;
    map.finish_run(map_run)?;
    scan::checkpoint::remove(scan_checkpoint)?;
    progress.finish();
    Ok(())
}

/// The names of DEST's refs (none before its first `HEAD`), whose values
/// are in `hash`: what a later run deletes is told by names, since most
/// are entries of `packed-refs`.
fn dest_ref_names(dest: &Path, hash: HashKind) -> Result<BTreeSet<String>, ConvertError> {
    if !dest_layout::head(dest).exists() {
        return Ok(BTreeSet::new());
    }
    let refs = refs::read_source_refs(dest, hash)?;
    Ok(refs
        .effective_refs()
        .into_iter()
        .map(|(name, _)| name)
        .collect())
}
