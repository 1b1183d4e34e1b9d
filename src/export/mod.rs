//! `git-rehash export-sha1 DEST MIRROR`: the way back. A project that moved
//! to SHA-256 keeps SHA-1 mirrors: the objects made in DEST (the SHA-256
//! repository `convert` made) since its conversion get the SHA-1 names
//! git's compat mode gives them, recorded in DEST's map, so the map stays
//! one bijection; everything MIRROR lacks is written into it as one pack,
//! and MIRROR's refs are brought in line with DEST's (docs/interop.md).
//!
//! The phases, in order (one file each):
//! - `open.rs`: DEST (a finished conversion, locked) and MIRROR (a SHA-1
//!   repository, locked); `finish::recover` completes what a killed run
//!   left in MIRROR;
//! - refs of both sides, read before any object is listed; `sha1_names.rs`:
//!   DEST's map in memory, with the gitlink pairs (`gitlinks.rs`);
//!   `refs::check_divergence` refuses when both sides gained commits;
//! - `dest_objects.rs`, `mirror_objects.rs`: what each side stores;
//! - `plan.rs`: what to name and write, in dependency order, and every
//!   refusal (missing objects, unmapped gitlinks) before anything is
//!   written;
//! - `name_new_objects.rs` (with `translate.rs`): the objects made in
//!   DEST named, their pairs recorded chunk by chunk; those MIRROR has
//!   dropped;
//! - `write.rs` (with `sha1_deltas.rs` and `segments.rs`): what MIRROR lacks
//!   written into checkpoint segments;
//! - `finish.rs`: the segments folded into one pack moved into MIRROR;
//! - `refs.rs`: MIRROR's refs updated under git's locks, last; with a
//!   ref selection recorded in DEST, only the refs it keeps (MIRROR's
//!   others are left alone, and reported so).
//!
//! Its kill points are listed in `phase.rs`. Resumable like a conversion: a kill loses at most the segment being
//! written; the next run skips what the segments and the map hold.
//! Incremental: a run with nothing new in DEST writes nothing.

mod dest_objects;
mod error;
mod finish;
mod gitlinks;
mod mirror_objects;
mod name_new_objects;
mod open;
mod options;
mod outcome;
mod phase;
mod plan;
mod refs;
mod segments;
mod sha1_deltas;
mod sha1_names;
mod translate;
mod write;

use std::time::Instant;

pub use error::{
    CorruptDest, DivergedRef, ExportError, ExportRefusal, MissingObject, UnmappedGitlink,
};
pub use options::ExportOptions;
pub use outcome::ExportOutcome;

use crate::gitlink_maps::UnmappedGitlinks;
use crate::hash::HashKind;
use crate::pipeline::Interrupted;
use crate::pipeline::StopPoints;
use crate::progress::Progress;
use crate::refs::{read_source_refs, update_refs};
use crate::repo::{dest_layout, mirror_layout};
use crate::translate::TranslateOptions;
use dest_objects::DestObjects;
use mirror_objects::ObjectNames;
use sha1_names::Names;

/// Exports DEST's history into MIRROR (see the module documentation).
pub fn export_sha1(
    opts: &ExportOptions,
    progress: &dyn Progress,
) -> Result<ExportOutcome, ExportError> {
    let pool = crate::worker_pool::worker_pool(opts.jobs, "rehash-export")
        .map_err(|e| crate::durable::PathError::new(&opts.dest, e))?;
    pool.install(|| export_in_pool(opts, progress))
}

fn export_in_pool(
    opts: &ExportOptions,
    progress: &dyn Progress,
) -> Result<ExportOutcome, ExportError> {
    let started = Instant::now();
    let stops = StopPoints::new(opts.interrupt.clone());
    let mut dest = open::open_dest(&opts.dest)?;
    let mirror = open::open_mirror(&opts.mirror, &dest.git_dir)?;
    stops.kill_point(phase::START);
    finish::recover(&mirror.git_dir)?;

    // Refs before objects: whatever a ref read here names was stored
    // before it, so the listing below finds it.
    let dest_refs = read_source_refs(&dest.git_dir, HashKind::Sha256)?;
    let mirror_refs = read_source_refs(&mirror.git_dir, HashKind::Sha1)?;
    let (dest_refs, mirror_refs, outside) = match &dest.selection {
        Some(selection) => (
            dest_refs.selected(selection),
            mirror_refs.selected(selection),
            refs::left_out(&mirror_refs, selection),
        ),
        None => (dest_refs, mirror_refs, Vec::new()),
    };
    progress.start("reading map", None);
    let gitlinks = gitlinks::gitlink_pairs(&dest.git_dir, &opts.submodule_maps)?;
    let mut names = Names::load(&dest_layout::map_db(&dest.git_dir), gitlinks)?;
    progress.finish();
    refs::check_divergence(&dest_refs, &mirror_refs, &names)?;

    let dest_objects = DestObjects::open(&dest_layout::objects_dir(&dest.git_dir))?;
    let mirror_objects = ObjectNames::open(
        &mirror_layout::pack_dir(&mirror.git_dir),
        Some(&mirror_layout::objects_dir(&mirror.git_dir)),
    )?;
    let segments = ObjectNames::open(&mirror_layout::segments_dir(&mirror.git_dir), None)?;
    let mut plan = plan::plan(
        &plan::PlanInputs {
            dest: &dest_objects,
            mirror: &mirror_objects,
            segments: &segments,
            placeholder: opts.unmapped_gitlinks == UnmappedGitlinks::Placeholder,
            progress,
        },
        &mut names,
    )?;
    // Before any tree that needs them is named: a later run, and
    // `verify`, read the pairs there.
    gitlinks::record_used(&dest.git_dir, &plan.gitlinks)?;
    let mut outcome = ExportOutcome {
        created_skipped: plan.created_skipped,
        gitlink_surrogates: names.surrogate_count(),
        ..Default::default()
    };
    // A mergetag made in DEST names what DEST has: kept verbatim only by
    // a conversion, whose commits have their pairs already.
    let translate = TranslateOptions {
        strict_headers: dest.strict_headers,
        verbatim_mergetags: false,
    };
    outcome.pairs_recorded = name_new_objects::name_new_objects(
        &name_new_objects::NameInputs {
            dest: &dest_objects,
            mirror: &mirror_objects,
            segments: &segments,
            translate,
            stops: &stops,
            progress,
        },
        &mut plan,
        &mut names,
        &mut dest.map,
    )?;
    drop(segments);
    let written = write::write_objects(
        &write::WriteInputs {
            dest: &dest_objects,
            plan: &plan,
            translate,
            level: opts.compression,
            segment_dir: mirror_layout::segments_dir(&mirror.git_dir),
            map_path: dest.map.path(),
            stops: &stops,
            progress,
        },
        &names,
    )?;
    outcome.written_by_kind = written.by_kind;
    outcome.blobs_copied_compressed = written.blobs_copied;
    outcome.segments_written = written.segments;
    if stops.interrupted() {
        return Err(Interrupted.into());
    }
    if let Some(pack) = finish::fold(&mirror.git_dir, &written.order, &stops, progress)? {
        outcome.pack_size = pack.pack_size;
        outcome.pack = Some(pack.pack_path);
    }

    progress.start("updating refs", None);
    let in_mirror = ObjectNames::open(
        &mirror_layout::pack_dir(&mirror.git_dir),
        Some(&mirror_layout::objects_dir(&mirror.git_dir)),
    )?;
    // git knows the empty tree without storing it.
    let present =
        |id: &crate::hash::ObjectId| in_mirror.has(id) || *id == HashKind::Sha1.empty_tree();
    let ref_plan = refs::plan_refs(&dest_refs, &mirror_refs, &names, &present)?;
    update_refs(&mirror.git_dir, HashKind::Sha1, &ref_plan.updates)?;
    stops.kill_point(phase::REFS);
    outcome.refs_created = ref_plan.created;
    outcome.refs_updated = ref_plan.moved;
    outcome.refs_deleted = ref_plan.deleted;
    outcome.refs_left_alone = ref_plan.left_alone;
    outcome.refs_left_alone.extend(outside);
    outcome.refs_left_alone.sort();
    progress.finish();
    if outcome.pairs_recorded > 0 || !dest.map.lookup_aids_current()? {
        // New rows (this run's, or a killed run's) emptied the map's
        // prefix filters: `map --batch` is fast again once they describe
        // every row.
        progress.start("indexing map", None);
        dest.map.finish_load()?;
        progress.finish();
    }
    outcome.elapsed = started.elapsed();
    Ok(outcome)
}
