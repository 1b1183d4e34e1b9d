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
//! The rooms, in pipeline order: `objects/` (what SOURCE stores, the object
//! table), `scan/` (decode and check every object once), `plan/` (refusals
//! and the dependency order), `write/` (the blob and map passes),
//! `segments/` (their output packs and the map commits), `finish/` (the
//! segments folded into one pack, `git-rehash repack`, the pack's bitmap
//! and the commit-graph), `resume/` (an existing DEST, stop points),
//! `interop/` (submodules, gitlinks, git's compat map, notes), `dest.rs`
//! (DEST created, locked, published).

mod context;
mod dest;
mod error;
mod finish;
mod interop;
mod objects;
mod options;
mod outcome;
mod plan;
mod resume;
mod scan;
mod segments;
mod shared_pool;
mod tag_peel;
mod write;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

pub use crate::pack::reach::ReachSummary;
pub use error::{
    ConvertError, CorruptInput, ErrorKind, MergetagTarget, Refusal, UnmappedSubmodule, role_name,
};
pub use finish::repack::{Repacked, repack};
pub use finish::serve::ServingIndexes;
pub use interop::InteropOutcome;
pub use interop::external_map::{ExternalMap, surrogate_for};
pub use interop::gitlinks_record;
pub use interop::rekey_notes::RekeyedRef;
pub use options::{ConvertOptions, SubmoduleSource, UnmappedGitlinks, UnmappedMergetags};
pub use outcome::{ConvertOutcome, SubmoduleOutcome};
pub use resume::JOURNAL_FORMAT;
pub use resume::stop_points::StopPoints;
pub use scan::{MissingReference, UnmappedGitlink, UnmappedMergetag};
pub use write::chunking::chunks_within;
/// For the resume tests: the chain lengths a resumed run reads back.
#[doc(hidden)]
pub use write::output_depths::written_depths;

use crate::hash::HashKind;
use crate::idmap::IdMap;
use crate::progress::{NoProgress, Progress};
use crate::refs;
use crate::repo::{SourceRepo, dest_layout};
use crate::translate::TranslateOptions;
use context::Run;
use interop::submodules;
use objects::{inventory, read_cache};
use resume::stop_points::phase;

/// Converts `opts.source` into a SHA-256 repository at `opts.dest`, or
/// continues / updates the conversion already there.
pub fn convert(
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<ConvertOutcome, ConvertError> {
    if opts.rekey_notes && opts.git_compat_map {
        // git's compat map needs a SHA-1 for every object; the re-keyed
        // notes commits and trees have none.
        return Err(Refusal::IncompatibleOptions(
            "--rekey-notes creates objects that have no SHA-1 name, which --git-compat-map \
             (extensions.compatObjectFormat) cannot describe; use one or the other"
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
            ConvertError::Interrupted => e,
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
    Ok(outcome)
}

fn convert_in_pool(
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<ConvertOutcome, ConvertError> {
    let started = Instant::now();
    let stops = StopPoints::new(opts.interrupt.clone());
    let source = SourceRepo::open(&opts.source)?;
    if source.object_format != HashKind::Sha1 {
        return Err(crate::repo::SourceError::Unsupported {
            path: source.git_dir.clone(),
            reason: format!(
                "it uses object format {}; this build converts SHA-1 repositories",
                source.object_format
            ),
        }
        .into());
    }
    if let Some(operation) = refs::in_progress_operation(&source.git_dir) {
        return Err(Refusal::InProgress {
            path: source.git_dir.clone(),
            operation: operation.to_string(),
        }
        .into());
    }
    dest::check_outside_source(&opts.dest, &source.git_dir, &opts.source)?;
    dest::check_outside_alternates(&opts.dest, &source.alternates)?;
    let existing = resume::open_existing(opts, &source)?;
    // The pool asked for, or the one an earlier run recorded.
    let pool = match (&opts.shared_with, &existing) {
        (Some(pool), _) => Some(pool.clone()),
        (None, Some(existing)) => existing.map.shared_with()?,
        (None, None) => None,
    }
    .map(|pool| shared_pool::SharedPool::open(&pool, &opts.dest))
    .transpose()?;
    stops.kill_point(phase::START);

    // Refs first: objects they name were already stored when they were
    // written, so a push racing with us cannot leave a ref without its objects.
    let source_refs = refs::read_source_refs(&source.git_dir, HashKind::Sha1)?;
    if let Some(operation) = refs::in_progress_in_table(&source_refs) {
        return Err(Refusal::InProgress {
            path: source.git_dir.clone(),
            operation: operation.to_string(),
        }
        .into());
    }
    let ref_format = existing
        .as_ref()
        .map_or_else(|| resume::first_ref_format(opts, &source), |e| e.ref_format);
    progress.start("counting objects", None);
    let (inventory, mut table) = inventory::Inventory::open_unverified(&source)?;
    read_cache::size_for(table.len() as u64);
    progress.finish();
    let mut outcome = ConvertOutcome {
        objects_listed: table.len() as u64,
        continued: existing.is_some(),
        ..Default::default()
    };
    let (dest, map, fresh) = match existing {
        Some(existing) => {
            progress.start("loading map", None);
            let rows = resume::load_map(&existing.map, &mut table)?;
            resume::carried::mark_carried(&existing.dest.path, &existing.map, &mut table)?;
            progress.finish();
            // Nothing converted yet (a run killed before its first pack):
            // a refusal may remove DEST as if this run had created it.
            let fresh = rows == 0 && existing.map.segment_packs()?.is_empty();
            (existing.dest, existing.map, fresh)
        }
        None => {
            // DEST exists from here on, so the scan has somewhere to
            // checkpoint; a refusal below removes it again.
            let dest = dest::Dest::create(&opts.dest)?;
            let map = IdMap::open_rw(&dest_layout::map_db(&dest.path))?;
            resume::write_meta(&map, opts, &source)?;
            (dest, map, true)
        }
    };
    outcome.objects_known = table.indices().filter(|&i| table.is_mapped(i)).count() as u64;
    if let Some(pool) = &pool {
        outcome.objects_shared = pool.load(&mut table)?;
        pool.write_alternates(&dest.path)?;
    }
    let run = Run {
        opts,
        inventory: &inventory,
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
    // The packs' whole-file checks (one sequential pass over each file)
    // run beside the scan rather than before it, on whichever thread is
    // free; nothing is written before both end, and a failed check is the
    // error reported even when the scan also failed (it explains why).
    let (verified, planned) = rayon::join(
        || inventory.verify(),
        || plan::plan(&run, &mut table, &source_refs, &scan_checkpoint),
    );
    let planned = verified.and(planned);
    let plan::Planned {
        scanned,
        waves,
        pairs,
        gitlink_targets,
    } = match planned {
        Ok(planned) => planned,
        Err(e) => {
            // A refused source leaves nothing behind; an interrupted scan
            // keeps its checkpoint for the next run.
            if fresh && !matches!(e, ConvertError::Interrupted) {
                dest.discard()?;
            }
            return Err(e);
        }
    };
    outcome.objects_read = scanned.objects_scanned;
    outcome.objects_restored = scanned.objects_restored;
    outcome.bytes_inflated = scanned.bytes_inflated;
    outcome.dest = dest.path.clone();
    outcome.map_path = dest_layout::map_db(&dest.path);
    resume::clean_leftovers(&dest, &map)?;
    map.set_meta("state", "converting")?;

    let (written, mut map, map_run) =
        write::write_objects(&run, &table, waves, &pairs, &dest.path, map)?;
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
    let names = objects::by_sha256::BySha256::new(&table);
    let folded = finish::fold_segments(&dest.path, &mut map, map_run, &names, &stops, progress)?;
    if let Some(folded) = &folded {
        outcome.packs_written = 1;
        outcome.pack_size = folded.bytes;
    }
    let tips: Vec<_> = source_refs
        .tip_ids()
        .filter_map(|id| table.map_sha1(&id))
        .collect();
    let serving_target = finish::serve::target(&dest.path, &map)?;
    let recorded = finish::serve::Recorded {
        records: &written.reach_records,
        names: &names,
    };

    progress.start("writing refs, indexing map, bitmap, commit-graph", None);
    stops.check_interrupt()?;
    let refs_before = dest_ref_names(&dest.path)?;
    let mapper = |id: &crate::hash::ObjectId| table.map_sha1(id);
    let peel = |id: &crate::hash::ObjectId| tag_peel::peel(&inventory, &table, id);
    // The map's index build (SQLite, mostly one core), the refs (file
    // creation and fdatasync, mostly waiting) and the pack's bitmap and
    // commit-graph (all cores, reading the pack) need nothing of each
    // other: they run side by side.
    let (refs_done, indexed, serving) = std::thread::scope(|scope| {
        let index = scope.spawn(|| map.finish_load());
        let (refs, serving) = rayon::join(
            || {
                refs::write_translated_refs(
                    &source_refs,
                    &dest.path,
                    HashKind::Sha256,
                    &mapper,
                    &peel,
                    ref_format,
                )
            },
            || {
                serving_target
                    .as_deref()
                    .map(|idx| {
                        finish::serve::write(&dest.path, idx, &tips, Some(&recorded), &NoProgress)
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
    outcome.serving = serving?;
    // Read once for the bitmap; a leftover is deleted by the next run.
    let _ = std::fs::remove_file(&written.reach_records);
    let mut ref_files = refs_done.files.clone();
    if opts.rekey_notes {
        // The reverse index, built above, tells created trees from
        // translated ones.
        let rekeyed = interop::rekey_notes::rekey_notes(
            &source_refs,
            &inventory,
            &table,
            &dest.path,
            &mut map,
        )?;
        let updates: Vec<_> = rekeyed.iter().map(|r| (r.name.clone(), r.commit)).collect();
        ref_files.extend(refs::point_refs(&dest.path, ref_format, &updates)?);
        outcome.interop.notes_rekeyed = rekeyed;
    }
    stops.kill_point(phase::REFS);
    resume::stale_refs::prune_stale_refs(&dest.path, &ref_files)?;
    outcome.refs_deleted = refs_before.difference(&dest_ref_names(&dest.path)?).count();
    progress.finish();
    outcome.refs_written = refs_done.refs_written;
    outcome.reflog_entries_dropped = refs_done.reflog_entries_dropped;
    outcome.pseudo_refs_dropped = refs_done.pseudo_refs_dropped.clone();

    progress.start("recording completion", None);
    map.set_meta("state", "complete")?;
    map.finish_run(map_run)?;
    scan::checkpoint::remove(&scan_checkpoint)?;
    progress.finish();
    for i in table.indices().filter(|&i| !table.is_mapped(i)) {
        let kind = table.kind(i).expect("every object was scanned");
        *outcome.objects_by_kind.entry(kind).or_default() += 1;
    }
    let mut config = interop::before_publish(
        opts,
        &dest.path,
        &table,
        &gitlink_targets,
        &mut outcome.interop,
    )?;
    if ref_format == refs::RefStorage::Reftable {
        // After [extensions], the config's last section.
        config.push_str("\trefstorage = reftable\n");
    }
    stops.kill_point(phase::PUBLISH);
    dest.publish(&refs_done.head, &config)?;
    outcome.elapsed = started.elapsed();
    Ok(outcome)
}

/// The names of DEST's refs (none before its first `HEAD`): what a later
/// run deletes is told by names, since most are entries of `packed-refs`.
fn dest_ref_names(dest: &Path) -> Result<BTreeSet<String>, ConvertError> {
    if !dest_layout::head(dest).exists() {
        return Ok(BTreeSet::new());
    }
    let refs = refs::read_source_refs(dest, HashKind::Sha256)?;
    Ok(refs
        .effective_refs()
        .into_iter()
        .map(|(name, _)| name)
        .collect())
}
