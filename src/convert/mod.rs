//! The orchestration of a conversion: source checks, inventory, scan,
//! dependency order, blob pass, map pass, refs, publish.
//!
//! A run is resumable and incremental: the map database in DEST is the
//! checkpoint (`journal.rs`). Objects with a map row are stored in a
//! finished pack of DEST and are skipped; everything else is converted and
//! written as additional packs; refs are brought in line with SOURCE.
//!
//! On a first run, everything that can refuse the input (missing objects,
//! collisions, unmapped gitlinks, unsupported layouts) is checked before
//! DEST is created, so a refusal leaves nothing behind.

mod blob_pass;
mod chunking;
#[cfg(test)]
mod collision_tests;
mod compat_map;
mod deflate;
mod delta_search;
mod dest;
mod error;
mod external_map;
mod gitlinks;
mod gitmodules;
mod interop;
mod inventory;
mod journal;
mod journal_commits;
mod loose_write;
mod map_pass;
mod notes_tree;
mod pack_layout;
mod progress;
mod read_cache;
mod recent_lookups;
mod rekey_notes;
mod resume;
mod resume_hooks;
mod resume_refs;
mod scan;
mod scan_checkpoint;
mod schedule;
mod segment_index;
mod source;
mod submodules;
mod table;
mod verify;
mod write_objects;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

pub use dest::rehash_dir;
pub use error::{ConvertError, role_name};
pub use external_map::surrogate_for;
pub use interop::{InteropOutcome, UnmappedGitlinks, gitlinks_path};
pub use progress::{NoProgress, Progress};
pub use rekey_notes::RekeyedRef;
pub use resume::JOURNAL_FORMAT;
pub use scan::{MissingReference, UnmappedGitlink};
pub use source::SourceRepo;
pub use submodules::{SubmoduleOutcome, SubmoduleSource};

use crate::hash::HashKind;
use crate::idmap::{IdMap, map_path};
use crate::object::ObjectKind;
use crate::refs;
use crate::translate::TranslateOptions;
use resume_hooks::{Checkpoints, phase};

/// What to convert and how.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    pub source: PathBuf,
    pub dest: PathBuf,
    /// Refuse commit header fields git 2.47 does not know, as git does.
    pub strict_headers: bool,
    /// Delete an existing git-rehash DEST first and start over.
    pub force: bool,
    /// zlib level for newly compressed data.
    pub compression: u32,
    /// `--window`: candidates the delta search tries per object.
    /// [`ConvertOptions::new`] sets [`ConvertOptions::FALLBACK_WINDOW`],
    /// meant for `reuse_deltas`; without reuse the CLI uses
    /// [`ConvertOptions::SEARCH_ALL_WINDOW`].
    pub window: usize,
    /// `--depth`: the longest delta chain written.
    pub depth: u32,
    /// Reuse the source packs' pairing (which object is a delta of which);
    /// `false` (`--no-reuse-deltas`): the window search chooses every base.
    pub reuse_deltas: bool,
    /// Worker threads; `None` = all cores.
    pub jobs: Option<usize>,
    /// Set (by a Ctrl-C handler) to stop at the next checkpoint with
    /// [`ConvertError::Interrupted`].
    pub interrupt: Option<Arc<AtomicBool>>,
    // --- interop (issue 8) ---
    /// Write `objects/loose-object-idx` and `compatObjectFormat = sha1`.
    pub git_compat_map: bool,
    /// Map databases or `<sha1> <sha256>` files naming gitlink targets.
    pub submodule_maps: Vec<PathBuf>,
    pub unmapped_gitlinks: UnmappedGitlinks,
    /// Convert the submodule repositories in SOURCE's `modules/` first,
    /// into DEST's `modules/`, and name gitlinks through their maps.
    pub recurse_submodules: bool,
    /// `--submodule PATH=REPO`: convert REPO first as the submodule at PATH.
    pub submodules: Vec<SubmoduleSource>,
    /// Put a commit on top of each notes ref whose notes are named by
    /// SHA-256 (`git notes` in DEST then finds them).
    pub rekey_notes: bool,
}

impl ConvertOptions {
    /// The default `--window` when the source pairing is reused: only the
    /// objects it does not serve are searched (mostly commits git made
    /// deltas of newer ones), and a wider window hardly finds better bases
    /// for them (git.git <= v2.12: window 250 made the pack 0.03% smaller
    /// than 10, for 10% more CPU). git's `pack.window` default too.
    pub const FALLBACK_WINDOW: usize = 10;
    /// The default `--window` with `--no-reuse-deltas`: the search picks
    /// every base, aiming at `git repack -f --window=250`'s size.
    pub const SEARCH_ALL_WINDOW: usize = 250;

    pub fn new(source: impl Into<PathBuf>, dest: impl Into<PathBuf>) -> Self {
        ConvertOptions {
            source: source.into(),
            dest: dest.into(),
            strict_headers: false,
            force: false,
            compression: 6,
            window: Self::FALLBACK_WINDOW,
            depth: 50,
            reuse_deltas: true,
            jobs: None,
            interrupt: None,
            git_compat_map: false,
            submodule_maps: Vec::new(),
            unmapped_gitlinks: UnmappedGitlinks::Refuse,
            recurse_submodules: false,
            submodules: Vec::new(),
            rekey_notes: false,
        }
    }
}

/// What a finished conversion did.
#[derive(Debug, Default, Clone)]
pub struct ConvertOutcome {
    pub dest: PathBuf,
    pub map_path: PathBuf,
    /// Objects converted by this run, by type.
    pub objects_by_kind: BTreeMap<ObjectKind, u64>,
    /// Objects SOURCE stores.
    pub objects_listed: u64,
    /// Objects SOURCE stores that already had map rows (earlier runs).
    pub objects_known: u64,
    /// Objects this run decoded and converted (those without a row).
    pub objects_read: u64,
    /// Objects without a row whose scan an interrupted run had finished
    /// (taken from its checkpoint instead of being decoded again).
    pub objects_restored: u64,
    pub bytes_inflated: u64,
    /// Packs this run added to DEST, and their total size.
    pub packs_written: u32,
    pub pack_size: u64,
    pub blobs_copied_compressed: u64,
    pub unknown_headers: BTreeMap<String, u64>,
    pub refs_written: usize,
    /// Loose ref files removed because SOURCE no longer has them.
    pub refs_deleted: usize,
    pub reflog_entries_dropped: usize,
    pub pseudo_refs_dropped: Vec<String>,
    /// Whether DEST held an earlier run's work (resumed or updated).
    pub continued: bool,
    pub interop: InteropOutcome,
    /// Submodules converted first (`--recurse-submodules`, `--submodule`),
    /// nested ones included, innermost first.
    pub submodules: Vec<SubmoduleOutcome>,
    pub elapsed: Duration,
}

/// Converts `opts.source` into a SHA-256 repository at `opts.dest`, or
/// continues / updates the conversion already there.
pub fn convert(
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<ConvertOutcome, ConvertError> {
    if opts.rekey_notes && opts.git_compat_map {
        // git's compat map needs a SHA-1 for every object; the re-keyed
        // notes commits and trees have none.
        return Err(ConvertError::IncompatibleOptions(
            "--rekey-notes creates objects that have no SHA-1 name, which --git-compat-map \
             (extensions.compatObjectFormat) cannot describe; use one or the other"
                .into(),
        ));
    }
    // Submodules first: their maps name the superproject's gitlinks.
    let mut submodules = Vec::new();
    let opts = &submodules::convert_submodules(opts, progress, &mut submodules)?;
    // Named, so a profile or /proc tells the workers from the helpers.
    let mut builder = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("rehash-worker-{i}"));
    if let Some(jobs) = opts.jobs {
        builder = builder.num_threads(jobs.max(1));
    }
    let pool = builder
        .build()
        .map_err(|e| ConvertError::io(&opts.dest, std::io::Error::other(e)))?;
    let mut outcome = pool.install(|| convert_in_pool(opts, progress))?;
    outcome.submodules = submodules;
    Ok(outcome)
}

fn convert_in_pool(
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<ConvertOutcome, ConvertError> {
    let started = Instant::now();
    let hooks = Checkpoints::new(opts.interrupt.clone());
    let source = SourceRepo::open(&opts.source)?;
    if let Some(operation) = refs::in_progress_operation(&source.git_dir) {
        return Err(ConvertError::InProgress {
            path: source.git_dir.clone(),
            operation: operation.to_string(),
        });
    }
    check_dest_outside_source(&opts.dest, &source.git_dir, &opts.source)?;
    let existing = resume::open_existing(opts, &source)?;
    hooks.kill_point(phase::START);

    // Refs first: objects they name were already stored when they were
    // written, so a push racing with us cannot leave a ref without its objects.
    let source_refs = refs::read_source_refs(&source.git_dir, HashKind::Sha1)?;
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
            let map = IdMap::open_rw(&map_path(&dest.path))?;
            resume::write_meta(&map, opts, &source)?;
            (dest, map, true)
        }
    };
    outcome.objects_known = table.indices().filter(|&i| table.is_mapped(i)).count() as u64;
    let checkpoint = rehash_dir(&dest.path).join(scan_checkpoint::FILE_NAME);
    let topts = TranslateOptions {
        strict_headers: opts.strict_headers,
    };
    // The packs' whole-file checks (one sequential pass over each file)
    // run beside the scan rather than before it, on whichever thread is
    // free; nothing is written before both end, and a failed check is the
    // error reported even when the scan also failed (it explains why).
    let (verified, planned) = rayon::join(
        || inventory.verify(),
        || {
            plan(
                opts,
                &inventory,
                &mut table,
                &source_refs,
                topts,
                &hooks,
                progress,
                &checkpoint,
            )
        },
    );
    let planned = verified.and(planned);
    let (scanned, waves, gitlink_targets) = match planned {
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
    outcome.map_path = map_path(&dest.path);
    resume::clean_leftovers(&dest, &map)?;
    map.set_meta("state", "converting")?;

    let (written, mut map, run) = write_objects::write_objects(
        opts,
        &inventory,
        &table,
        waves,
        topts,
        dest.pack_dir(),
        map,
        &hooks,
        progress,
    )?;
    outcome.blobs_copied_compressed = written.blobs_copied;
    outcome.unknown_headers = written.mapped.unknown_headers;
    outcome.packs_written = written.packs;
    outcome.pack_size = written.pack_size;

    // Nothing reads objects through the caches any more (notes rekeying
    // below fills them again if it runs).
    read_cache::release_all();
    progress.start("writing refs, indexing map", None);
    hooks.check_interrupt()?;
    let mapper = |id: &crate::hash::ObjectId| table.map_sha1(id);
    // The map's index build (SQLite, mostly one core) and the refs (file
    // creation and fdatasync, mostly waiting) need nothing of each other:
    // they run side by side.
    let (refs_done, indexed) = std::thread::scope(|scope| {
        let index = scope.spawn(|| map.finish_load());
        let refs = refs::write_translated_refs(&source_refs, &dest.path, HashKind::Sha256, &mapper);
        (refs, index.join().expect("the index build does not panic"))
    });
    let refs_done = refs_done?;
    indexed?;
    let mut ref_files = refs_done.files.clone();
    if opts.rekey_notes {
        // The reverse index, built above, tells created trees from
        // translated ones.
        let (rekeyed, files) =
            rekey_notes::rekey_notes(&source_refs, &inventory, &table, &dest.path, &mut map)?;
        outcome.interop.notes_rekeyed = rekeyed;
        ref_files.extend(files);
    }
    hooks.kill_point(phase::REFS);
    outcome.refs_deleted = resume_refs::prune_stale_refs(&dest.path, &ref_files)?;
    progress.finish();
    outcome.refs_written = refs_done.refs_written;
    outcome.reflog_entries_dropped = refs_done.reflog_entries_dropped;
    outcome.pseudo_refs_dropped = refs_done.pseudo_refs_dropped.clone();

    progress.start("recording completion", None);
    map.set_meta("state", "complete")?;
    map.finish_run(run)?;
    scan_checkpoint::remove(&checkpoint)?;
    progress.finish();
    for i in table.indices().filter(|&i| !table.is_mapped(i)) {
        let kind = table.kind(i).expect("every object was scanned");
        *outcome.objects_by_kind.entry(kind).or_default() += 1;
    }
    let config = interop::before_publish(
        opts,
        &dest.path,
        &table,
        &gitlink_targets,
        &mut outcome.interop,
    )?;
    hooks.kill_point(phase::PUBLISH);
    dest.publish(&refs_done.head, &config)?;
    outcome.elapsed = started.elapsed();
    Ok(outcome)
}

/// Everything that can refuse the input, before anything is written: the
/// scan (names, collisions, structure), missing objects, unmapped
/// gitlinks, ref targets; then the dependency order of what is new.
#[allow(clippy::too_many_arguments)]
fn plan(
    opts: &ConvertOptions,
    inventory: &inventory::Inventory,
    table: &mut table::ObjectTable,
    source_refs: &refs::SourceRefs,
    topts: TranslateOptions,
    hooks: &Checkpoints,
    progress: &dyn Progress,
    checkpoint: &Path,
) -> Result<(scan::ScanOutcome, Vec<Vec<u32>>, interop::GitlinkTargets), ConvertError> {
    let mut scanned = scan::scan(inventory, table, topts, hooks, progress, checkpoint)?;
    if !scanned.missing.is_empty() {
        return Err(ConvertError::MissingObjects(std::mem::take(
            &mut scanned.missing,
        )));
    }
    let gitlink_targets = interop::resolve_gitlinks(opts, table, &mut scanned.gitlinks)?;
    if !scanned.gitlinks.is_empty() {
        return Err(gitlinks::unmapped_gitlinks_error(
            inventory,
            table,
            &scanned.gitlinks,
        ));
    }
    for (refname, id) in required_ref_targets(source_refs) {
        if table.find_id(&id).is_none() && table::well_known_pair(&id).is_none() {
            return Err(ConvertError::MissingRefTarget { refname, id });
        }
    }
    let waves = schedule::waves(table, &mut scanned.edges)?;
    // The waves say all the edges did; they would only weigh on the passes.
    scanned.edges = Vec::new();
    Ok((scanned, waves, gitlink_targets))
}

/// The ids refs must be able to name: every ref, peeled tag and a detached
/// HEAD. Reflogs and pseudo-refs may name pruned objects; those entries are
/// dropped instead.
fn required_ref_targets(refs: &refs::SourceRefs) -> Vec<(String, crate::hash::ObjectId)> {
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

/// Writing DEST inside SOURCE's git directory or work tree would change the
/// source (and, for a work tree, make git see untracked files).
fn check_dest_outside_source(
    dest: &Path,
    git_dir: &Path,
    source: &Path,
) -> Result<(), ConvertError> {
    let dest_abs = absolute_lexical(dest);
    let source_abs = std::fs::canonicalize(source).unwrap_or_else(|_| absolute_lexical(source));
    // Resolve the deepest existing ancestor of DEST, so symlinks are seen through.
    let mut probe = dest_abs.clone();
    let mut tail = Vec::new();
    while !probe.exists() {
        match (probe.file_name().map(|n| n.to_os_string()), probe.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name);
                probe = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut resolved = std::fs::canonicalize(&probe).unwrap_or(probe);
    for name in tail.into_iter().rev() {
        resolved.push(name);
    }
    if resolved.starts_with(git_dir) || resolved.starts_with(&source_abs) {
        return Err(ConvertError::DestInsideSource {
            dest: dest.to_path_buf(),
            source_dir: source_abs,
        });
    }
    Ok(())
}

fn absolute_lexical(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|c| c.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}
