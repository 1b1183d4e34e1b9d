//! The first step of a conversion: SOURCE checked (read-only) and
//! snapshotted, refs before objects, and DEST opened to continue an
//! earlier run or created, with the pool a shared DEST borrows from.
//!
//! Refs are read before objects: the objects they name were stored when
//! they were written, so a push racing with the run cannot leave a ref
//! without its objects. With a ref selection (the options', or the one
//! DEST records: `resume/selection.rs`), the snapshot holds the selected
//! refs only.

use super::dest::{self, Dest};
use super::error::{ConvertError, Refusal};
use super::options::ConvertOptions;
use super::outcome::ConvertOutcome;
use super::phase;
use super::resume::{self, Existing};
use super::shared_pool::{self, SharedPool};
use super::source_map::SourceMap;
use super::source_objects::inventory::Inventory;
use super::source_objects::read_cache;
use super::source_objects::table::ObjectTable;
use crate::idmap::IdMap;
use crate::pipeline::StopPoints;
use crate::progress::Progress;
use crate::refs::{self, RefSelection, RefStorage, SourceRefs};
use crate::repo::{SourceRepo, dest_layout};

/// SOURCE as this run converts it, and the DEST it writes.
pub struct Opened {
    /// SOURCE's refs, read before its objects were listed: those the
    /// selection keeps.
    pub source_refs: SourceRefs,
    /// The refs this run carries; `None`: every object is converted.
    pub selection: Option<RefSelection>,
    /// The ref backend DEST keeps.
    pub ref_format: RefStorage,
    /// SOURCE's packs and loose objects.
    pub inventory: Inventory,
    /// SOURCE's own map, when SOURCE is a git-rehash DEST.
    pub source_map: Option<SourceMap>,
    /// Every object of SOURCE; those with map rows are marked converted.
    pub table: ObjectTable,
    pub dest: Dest,
    pub map: IdMap,
    /// DEST holds nothing converted yet: a refusal removes it again.
    pub fresh: bool,
}

/// Opens SOURCE and DEST (see the module documentation); counts what it
/// finds in `outcome`.
pub fn open(
    opts: &ConvertOptions,
    stops: &StopPoints,
    progress: &dyn Progress,
    outcome: &mut ConvertOutcome,
) -> Result<Opened, ConvertError> {
    let source = open_source(opts)?;
    let source_map = SourceMap::open(&source)?;
    let existing = resume::open_existing(opts, &source)?;
    let pool = pool_of(opts, existing.as_ref())?;
    stops.kill_point(phase::START);

    let source_refs = refs::read_source_refs(&source.git_dir, source.object_format)?;
    if let Some(operation) = refs::in_progress_in_table(&source_refs) {
        return Err(Refusal::InProgress {
            path: source.git_dir.clone(),
            operation: operation.to_string(),
        }
        .into());
    }
    let converted_before = match &existing {
        Some(e) => e.map.count()? > 0 || !e.map.segment_packs()?.is_empty(),
        None => false,
    };
    let settled = resume::selection::settle(
        opts.ref_selection.as_ref(),
        &opts.dest,
        existing.as_ref().map(|e| &e.map),
        converted_before,
        &source_refs,
    )?;
    outcome.selection_note = settled.note;
    let source_refs = match &settled.selection {
        Some(selection) => {
            let kept = source_refs.selected(selection);
            outcome.refs_left_out =
                source_refs.effective_refs().len() - kept.effective_refs().len();
            kept
        }
        None => source_refs,
    };
    outcome.selection = settled.selection.clone();
    let ref_format = existing
        .as_ref()
        .map_or_else(|| resume::first_ref_format(opts, &source), |e| e.ref_format);
    progress.start("counting objects", None);
    let (inventory, mut table) = Inventory::open_unverified(&source)?;
    read_cache::size_for(table.len() as u64);
    progress.finish();
    outcome.objects_listed = table.len() as u64;
    outcome.continued = existing.is_some();
    let (dest, map, fresh) = match existing {
        Some(existing) => continue_dest(existing, &mut table, progress)?,
        None => create_dest(opts, &source)?,
    };
    map.set_ref_selection(settled.selection.as_ref())?;
    outcome.objects_known = table.indices().filter(|&i| table.is_mapped(i)).count() as u64;
    if let Some(pool) = &pool {
        outcome.objects_shared = pool.load(&mut table)?;
        pool.write_alternates(&dest.path)?;
    }
    Ok(Opened {
        source_refs,
        selection: settled.selection,
        ref_format,
        inventory,
        source_map,
        table,
        dest,
        map,
        fresh,
    })
}

/// SOURCE, refused when an operation is in progress in it or when DEST
/// would lie inside it or its alternates.
fn open_source(opts: &ConvertOptions) -> Result<SourceRepo, ConvertError> {
    let source = SourceRepo::open(&opts.source)?;
    if let Some(operation) = refs::in_progress_operation(&source.git_dir) {
        return Err(Refusal::InProgress {
            path: source.git_dir.clone(),
            operation: operation.to_string(),
        }
        .into());
    }
    dest::check_outside_source(&opts.dest, &source.git_dir, &opts.source)?;
    dest::check_outside_alternates(&opts.dest, &source.alternates)?;
    Ok(source)
}

/// The pool asked for, or the one an earlier run recorded.
fn pool_of(
    opts: &ConvertOptions,
    existing: Option<&Existing>,
) -> Result<Option<SharedPool>, ConvertError> {
    match (&opts.shared_with, existing) {
        (Some(pool), _) => Some(pool.clone()),
        (None, Some(existing)) => existing.map.shared_with()?,
        (None, None) => None,
    }
    .map(|pool| shared_pool::SharedPool::open(&pool, &opts.dest))
    .transpose()
}

/// An earlier run's DEST, its map rows and the objects of its waiting
/// segments loaded into the table.
fn continue_dest(
    mut existing: Existing,
    table: &mut ObjectTable,
    progress: &dyn Progress,
) -> Result<(Dest, IdMap, bool), ConvertError> {
    progress.start("loading map", None);
    let rows = resume::load_map(&existing.map, table)?;
    let adopted = resume::adopted::adopt_waiting(&mut existing.map, table)?;
    resume::carried::mark_carried(&existing.dest.path, &existing.map, table)?;
    progress.finish();
    // Nothing converted yet (a run killed before its first pack):
    // a refusal may remove DEST as if this run had created it.
    let fresh = rows == 0 && adopted == 0 && existing.map.segment_packs()?.is_empty();
    Ok((existing.dest, existing.map, fresh))
}

/// A new DEST: it exists from here on, so the scan has somewhere to
/// checkpoint; a refusal removes it again.
fn create_dest(
    opts: &ConvertOptions,
    source: &SourceRepo,
) -> Result<(Dest, IdMap, bool), ConvertError> {
    let dest = Dest::create(&opts.dest)?;
    let map = IdMap::open_rw(&dest_layout::map_db(&dest.path))?;
    resume::write_meta(&map, opts, source)?;
    Ok((dest, map, true))
}
