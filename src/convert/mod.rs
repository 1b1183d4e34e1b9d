//! The orchestration of a conversion: source checks, inventory, scan,
//! dependency order, map pass, blob pass, refs, map database, publish.
//!
//! Everything that can refuse the input (missing objects, collisions,
//! unmapped gitlinks, unsupported layouts) is checked before DEST is
//! created, so a refusal leaves nothing behind.

mod blob_pass;
#[cfg(test)]
mod collision_tests;
mod deflate;
mod dest;
mod error;
mod gitlinks;
mod inventory;
mod lock_check;
mod map_pass;
mod progress;
mod scan;
mod schedule;
mod source;
mod table;
mod verify;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use dest::rehash_dir;
pub use error::{ConvertError, role_name};
pub use progress::{NoProgress, Progress};
pub use scan::{MissingReference, UnmappedGitlink};
pub use source::SourceRepo;

use crate::hash::HashKind;
use crate::idmap::{IdMap, MapRow, map_path};
use crate::object::ObjectKind;
use crate::pack::write::PackWriter;
use crate::refs;
use crate::translate::TranslateOptions;

/// What to convert and how.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    pub source: PathBuf,
    pub dest: PathBuf,
    /// Refuse commit header fields git 2.47 does not know, as git does.
    pub strict_headers: bool,
    /// Remove an unfinished earlier conversion at DEST first.
    pub force: bool,
    /// zlib level for newly compressed data.
    pub compression: u32,
    /// Worker threads; `None` = all cores.
    pub jobs: Option<usize>,
}

impl ConvertOptions {
    pub fn new(source: impl Into<PathBuf>, dest: impl Into<PathBuf>) -> Self {
        ConvertOptions {
            source: source.into(),
            dest: dest.into(),
            strict_headers: false,
            force: false,
            compression: 6,
            jobs: None,
        }
    }
}

/// What a finished conversion did.
#[derive(Debug, Default, Clone)]
pub struct ConvertOutcome {
    pub dest: PathBuf,
    pub map_path: PathBuf,
    pub objects_by_kind: BTreeMap<ObjectKind, u64>,
    pub objects_read: u64,
    pub bytes_inflated: u64,
    pub pack_size: u64,
    pub blobs_copied_compressed: u64,
    pub unknown_headers: BTreeMap<String, u64>,
    pub refs_written: usize,
    pub reflog_entries_dropped: usize,
    pub pseudo_refs_dropped: Vec<String>,
    pub elapsed: Duration,
}

/// Converts `opts.source` into a new SHA-256 repository at `opts.dest`.
pub fn convert(
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<ConvertOutcome, ConvertError> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(jobs) = opts.jobs {
        builder = builder.num_threads(jobs.max(1));
    }
    let pool = builder
        .build()
        .map_err(|e| ConvertError::io(&opts.dest, std::io::Error::other(e)))?;
    pool.install(|| convert_in_pool(opts, progress))
}

fn convert_in_pool(
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<ConvertOutcome, ConvertError> {
    let started = Instant::now();
    let source = SourceRepo::open(&opts.source)?;
    if let Some(operation) = refs::in_progress_operation(&source.git_dir) {
        return Err(ConvertError::InProgress {
            path: source.git_dir.clone(),
            operation: operation.to_string(),
        });
    }
    check_dest_outside_source(&opts.dest, &source.git_dir, &opts.source)?;

    // Refs first: objects they name were already stored when they were
    // written, so a push racing with us cannot leave a ref without its objects.
    let source_refs = refs::read_source_refs(&source.git_dir, HashKind::Sha1)?;
    let (inventory, mut table) = inventory::Inventory::open(&source)?;
    let topts = TranslateOptions {
        strict_headers: opts.strict_headers,
    };
    let mut scanned = scan::scan(&inventory, &mut table, topts, progress)?;
    if !scanned.missing.is_empty() {
        return Err(ConvertError::MissingObjects(scanned.missing));
    }
    if !scanned.gitlinks.is_empty() {
        return Err(gitlinks::unmapped_gitlinks_error(
            &inventory,
            &table,
            &scanned.gitlinks,
        ));
    }
    for (refname, id) in required_ref_targets(&source_refs) {
        if table.find_id(&id).is_none() && table::well_known_pair(&id).is_none() {
            return Err(ConvertError::MissingRefTarget { refname, id });
        }
    }
    let waves = schedule::waves(&table, &mut scanned.edges)?;

    let dest = dest::Dest::create(&opts.dest, opts.force)?;
    let mut outcome = ConvertOutcome {
        dest: dest.path.clone(),
        map_path: map_path(&dest.path),
        objects_read: table.len() as u64,
        bytes_inflated: scanned.bytes_inflated,
        ..Default::default()
    };
    if !table.is_empty() {
        let count = u32::try_from(table.len()).map_err(|_| {
            ConvertError::io(
                &opts.source,
                std::io::Error::other("more than 2^32 objects"),
            )
        })?;
        let mut pack = PackWriter::create(&dest.pack_dir(), HashKind::Sha256, count)?;
        let mapped = map_pass::map_pass(
            &inventory,
            &mut table,
            &waves,
            topts,
            opts.compression,
            &mut pack,
            progress,
        )?;
        outcome.unknown_headers = mapped.unknown_headers;
        outcome.blobs_copied_compressed =
            blob_pass::blob_pass(&inventory, &table, opts.compression, &mut pack, progress)?;
        progress.start("finishing pack", None);
        let written = pack.finish()?;
        progress.finish();
        outcome.pack_size = written.pack_size;
    }

    progress.start("writing refs", None);
    let mapper = |id: &crate::hash::ObjectId| table.map_sha1(id);
    let refs_done =
        refs::write_translated_refs(&source_refs, &dest.path, HashKind::Sha256, &mapper)?;
    progress.finish();
    outcome.refs_written = refs_done.refs_written;
    outcome.reflog_entries_dropped = refs_done.reflog_entries_dropped;
    outcome.pseudo_refs_dropped = refs_done.pseudo_refs_dropped.clone();

    progress.start("writing map database", Some(table.len() as u64));
    write_map(&outcome.map_path, &table, &source, opts)?;
    progress.finish();
    for i in table.indices() {
        let kind = table.kind(i).expect("every object was scanned");
        *outcome.objects_by_kind.entry(kind).or_default() += 1;
    }
    dest.publish(&refs_done.head)?;
    outcome.elapsed = started.elapsed();
    Ok(outcome)
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

fn write_map(
    path: &Path,
    table: &table::ObjectTable,
    source: &SourceRepo,
    opts: &ConvertOptions,
) -> Result<(), ConvertError> {
    let mut map = IdMap::open_rw(path)?;
    map.load(table.indices().map(|i| {
        MapRow {
            sha1: table.sha1(i),
            sha256: table
                .sha256(i)
                .expect("every object is named before the map is written"),
            kind: table.kind(i).expect("every object was scanned"),
        }
    }))?;
    map.finish_load()?;
    map.set_meta("source", &source.git_dir.display().to_string())?;
    map.set_meta("tool", concat!("git-rehash ", env!("CARGO_PKG_VERSION")))?;
    map.set_meta(
        "strict_headers",
        if opts.strict_headers { "true" } else { "false" },
    )?;
    map.set_meta("state", "complete")?;
    Ok(())
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
