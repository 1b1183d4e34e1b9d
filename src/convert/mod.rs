//! The orchestration of a conversion: the phases in order, from the
//! source checks to publishing DEST.
//!
//! A run is resumable and incremental: the map database in DEST is the
//! checkpoint (`segments/`). Objects with a map row are stored in DEST
//! and are skipped; everything else is converted, written to segments and
//! folded into one more pack (`finish/`), which gets its reachability
//! bitmap and the commit-graph when it is DEST's only pack; refs are
//! brought in line with SOURCE, and DEST is published.
//!
//! On a first run, everything that can refuse the input (missing objects,
//! collisions, unmapped gitlinks, unsupported layouts) is checked before
//! DEST is created, so a refusal leaves nothing behind.
//!
//! The steps, in order: `submodules/` (converted first, when asked),
//! `open.rs` (SOURCE checked and read, DEST opened to resume it, with
//! `resume/`, or created, with `dest/`), `plan/` (the scan, `scan/`, and
//! every refusal, then the dependency order), `write/` (the blob and map
//! passes, into `segments/`), `finish/` (the segments folded into one
//! pack; also `git-rehash repack` and the pack's bitmap and
//! commit-graph), `publish/` (refs, notes, the gitlink record and git's
//! compat map, then DEST becomes a repository). Below them:
//! `source_objects/` (what SOURCE stores, the object table), `error/`,
//! `options.rs`, `outcome.rs`, `phase.rs` (the kill points), `context.rs`.
//! A file imports only files of the steps before its own and the rooms
//! below them (docs/architecture.md).

mod chunk_log;
#[cfg(test)]
mod collision_tests;
mod context;
mod dest;
mod error;
mod finish;
mod open;
mod options;
mod outcome;
mod phase;
mod plan;
mod publish;
mod reach_record;
mod resume;
mod scan;
mod segments;
mod shared_pool;
mod source_map;
mod source_objects;
mod submodules;
mod tag_peel;
mod write;

use std::time::Instant;

pub use crate::gitlink_maps::UnmappedGitlinks;
pub use crate::pack::reach::ReachSummary;
pub use error::findings::{
    MissingReference, ReachingRefs, RefusalReach, UnmappedGitlink, UnmappedMergetag,
};
pub use error::{
    ConvertError, CorruptInput, MergetagTarget, Refusal, UnmappedSubmodule, role_name,
};
pub use finish::repack::{Repacked, repack};
pub use options::{ConvertOptions, SubmoduleSource, UnmappedMergetags};
pub use outcome::{ConvertOutcome, InteropOutcome, RekeyedRef, ServingIndexes, SubmoduleOutcome};
pub use resume::JOURNAL_FORMAT;
/// For the resume tests: the chain lengths a resumed run reads back.
#[doc(hidden)]
pub use write::output_depths::written_depths;

use crate::pipeline::StopPoints;
use crate::progress::Progress;
use crate::repo::dest_layout;
use crate::translate::TranslateOptions;
use context::Run;
use open::Opened;
use source_objects::read_cache;

/// Converts `opts.source` into a SHA-256 repository at `opts.dest`, or
/// continues / updates the conversion already there.
pub fn convert(
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<ConvertOutcome, ConvertError> {
    if opts.rekey_notes && opts.git_compat_map {
        // git's compat map needs SOURCE's name of every object; the
        // re-keyed notes commits and trees have none.
        return Err(Refusal::IncompatibleOptions(
            "--rekey-notes creates objects that have no name in SOURCE's hash, which \
             --git-compat-map (extensions.compatObjectFormat) cannot describe; use one or the other"
                .into(),
        )
        .into());
    }
    let mut opts = opts.clone();
    if let Some(pool) = &opts.shared_with {
        opts.shared_with = Some(shared_pool::canonical_pool(pool)?);
    }
    // Submodules first: their maps name the superproject's gitlinks.
    let mut submodules = Vec::new();
    for job in submodules::submodule_jobs(&mut opts)? {
        let outcome = convert(&job.options, progress).map_err(|e| match e {
            ConvertError::Interrupted(_) => e,
            e => ConvertError::Submodule {
                name: job.name.clone(),
                repo: job.options.source.clone(),
                error: Box::new(e),
            },
        })?;
        submodules::record_submodule(&mut opts, job, outcome, &mut submodules);
    }
    let opts = &opts;
    let pool = crate::worker_pool::worker_pool(opts.jobs, "rehash-worker")
        .map_err(|e| ConvertError::io(&opts.dest, e))?;
    let mut outcome = pool.install(|| convert_in_pool(opts, progress))?;
    outcome.submodules = submodules;
    outcome.workers = pool.current_num_threads();
    Ok(outcome)
}

/// One conversion, on the worker pool: its steps in order.
fn convert_in_pool(
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<ConvertOutcome, ConvertError> {
    let started = Instant::now();
    let stops = StopPoints::new(opts.interrupt.clone());
    let mut outcome = ConvertOutcome::default();
    let Opened {
        source_refs,
        selection,
        ref_format,
        inventory,
        source_map,
        mut table,
        dest,
        map,
        fresh,
    } = open::open(opts, &stops, progress, &mut outcome)?;
    let run = Run {
        opts,
        inventory: &inventory,
        source_map: source_map.as_ref(),
        selection: selection.as_ref(),
        // Verbatim mergetags are allowed per commit, for the commits the
        // plan found (`ObjectTable::keeps_mergetags`).
        translate: TranslateOptions {
            strict_headers: opts.strict_headers,
            verbatim_mergetags: false,
        },
        stops: &stops,
        progress,
    };

    let scan_checkpoint = dest_layout::scan_checkpoint(&dest.path);
    let planned = plan::plan_beside_checks(&run, &mut table, &source_refs, &scan_checkpoint);
    let plan::Planned {
        scanned,
        waves,
        pairs,
        gitlink_targets,
        left_out,
    } = match planned {
        Ok(planned) => planned,
        Err(e) => {
            // A refused source leaves nothing behind; an interrupted scan
            // keeps its checkpoint for the next run.
            if fresh && !matches!(e, ConvertError::Interrupted(_)) {
                dest.discard()?;
            }
            return Err(e);
        }
    };
    outcome.objects_left_out = left_out;
    outcome.objects_read = scanned.objects_scanned.saturating_sub(left_out);
    outcome.objects_restored = scanned.objects_restored;
    outcome.bytes_inflated = scanned.bytes_inflated;
    outcome.dest = dest.path.clone();
    outcome.map_path = dest_layout::map_db(&dest.path);
    dest::leftovers::clean_leftovers(&dest, &map)?;
    map.set_meta("state", "converting")?;

    // SOURCE refused while its objects are named (a SHA-1 form that shows
    // a collision attack, a name SOURCE's own map disagrees with): a first
    // run leaves nothing behind, as a refusal before the writes does.
    let refused = |e: ConvertError, dest: dest::Dest| -> Result<_, ConvertError> {
        if fresh && matches!(e, ConvertError::Corrupt(_)) {
            dest.discard()?;
        }
        Err(e)
    };
    let (written, mut map, map_run) =
        match write::write_objects(&run, &table, waves, &pairs, &dest.path, map) {
            Ok(written) => written,
            Err(e) => return refused(e, dest),
        };
    // Every object is named: SOURCE's own map must agree with every name.
    if let Some(source_map) = &source_map
        && let Err(e) = source_map.check(&table)
    {
        return refused(e, dest);
    }
    outcome.blobs_copied_compressed = written.blobs_copied;
    outcome.unknown_headers = written.mapped.unknown_headers;
    outcome.verbatim_mergetag_commits = table.verbatim_mergetag_count() as u64;
    outcome.segments_written = written.packs;
    // Nothing reads objects through the caches any more: the fold reads
    // the segments, the rest only names.
    read_cache::release_all();
    stops.check_interrupt()?;

    // Every object is named now: the fold and the bitmap meet them by
    // their SHA-256 names through one index.
    let names = source_objects::by_dest_name::ByDestName::new(&table);
    let folded = finish::fold_segments(&dest.path, &mut map, map_run, &names, &stops, progress)?;
    if let Some(folded) = &folded {
        outcome.packs_written = 1;
        outcome.pack_size = folded.bytes;
    }
    for i in table.indices().filter(|&i| table.is_new(i)) {
        let kind = table.kind(i).expect("every object was scanned");
        *outcome.objects_by_kind.entry(kind).or_default() += 1;
    }
    outcome.objects_converted = outcome.objects_by_kind.values().sum();
    outcome.objects_carried = table.indices().filter(|&i| table.is_carried(i)).count() as u64;

    publish::publish(
        publish::PublishInputs {
            opts,
            dest,
            map,
            map_run,
            source_refs: &source_refs,
            ref_format,
            inventory: &inventory,
            table: &table,
            names: &names,
            reach_records: &written.reach_records,
            gitlink_targets: &gitlink_targets,
            scan_checkpoint: &scan_checkpoint,
            stops: &stops,
            progress,
        },
        &mut outcome,
    )?;
    outcome.elapsed = started.elapsed();
    Ok(outcome)
}
