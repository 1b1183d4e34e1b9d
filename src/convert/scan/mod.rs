//! The scan: decode every source object once, verify its SHA-1 name with
//! collision detection, name blobs in SHA-256 right away (their bytes do not
//! change), and record what each tree, commit and tag references so the map
//! pass can translate them in dependency order. With a ref selection, a
//! tree's file entries are recorded too (edges to blobs), so that what the
//! selected refs reach can be found without reading a tree again
//! (`convert/plan/selection.rs`).
//!
//! Objects an earlier run converted (they have map rows) are not decoded
//! at all when few of a pack's objects are new: the new ones are read one
//! by one. A pack with many new objects is traversed whole (each base
//! inflated once), recording only the new ones.

pub mod checkpoint;
mod flush_clock;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use rayon::prelude::*;

use crate::convert::context::Run;
use crate::convert::error::ConvertError;
use crate::convert::error::CorruptInput;
use crate::convert::phase;
use crate::convert::scan::checkpoint::{Named, ScanCheckpoint, ScanRecords};
use crate::convert::scan::flush_clock::FlushClock;
use crate::convert::source_objects::inventory::Inventory;
use crate::convert::source_objects::read_cache;
use crate::convert::source_objects::table::{Location, ObjectTable, well_known_pair};
use crate::hash::{HashKind, ObjectId};
use crate::loose;
use crate::object::object_id;
use crate::object::{
    ObjectKind, ReferenceRole, SharedEntries, TreeMode, for_each_reference, tree_entries,
};
use crate::pack::{BatchLimits, NameHashVersion, Pack};
use crate::pipeline::Interrupted;
use crate::pipeline::StopPoints;
use crate::progress::Progress;
use crate::translate::{TranslateOptions, translate_commit};

pub use crate::convert::error::findings::{MissingReference, UnmappedGitlink, UnmappedMergetag};

/// What the scan learned, besides what it stored in the table.
#[derive(Debug, Default)]
pub struct ScanOutcome {
    /// (dependent, dependency) pairs between table entries; dependencies
    /// that turn out to be blobs are dropped by the scheduler.
    pub edges: Vec<(u32, u32)>,
    pub missing: Vec<MissingReference>,
    pub gitlinks: Vec<UnmappedGitlink>,
    pub mergetags: Vec<UnmappedMergetag>,
    /// (tree, base) pairs whose shared file entries only the base's edges
    /// hold (recorded with blob edges only; `ScanRecords::leaned`).
    pub leaned: Vec<(u32, u32)>,
    pub bytes_inflated: u64,
    /// Objects decoded and recorded by this run (without a map row).
    pub objects_scanned: u64,
    /// Objects without a map row whose scan results came from the
    /// checkpoint of an interrupted run instead.
    pub objects_restored: u64,
}

/// A pack is traversed whole when at least 1/TRAVERSE_FRACTION of its
/// objects are new; otherwise its new objects are read one by one.
const TRAVERSE_FRACTION: usize = 4;

/// A checkpointed batch is about a second of work: per worker thread, this
/// many objects or this much compressed pack data (~35 us of CPU an object
/// on git.git; big blobs are bounded by the byte limit).
const BATCH_OBJECTS_PER_THREAD: usize = 32 << 10;
const BATCH_BYTES_PER_THREAD: u64 = 32 << 20;

/// What the workers of one batch record. Each worker thread writes to a
/// part of its own, on a cache line of its own, whose lock no other thread
/// takes until the batch is finished: one shared list behind one lock and
/// two shared counters cost every object a contended cache line, which
/// many cores would queue on.
struct Sink {
    parts: Box<[ThreadPart]>,
}

#[derive(Default)]
#[repr(align(128))]
struct ThreadPart(Mutex<Part>);

impl ThreadPart {
    fn lock(&self) -> MutexGuard<'_, Part> {
        self.0.lock().expect("no panics while holding the lock")
    }
}

#[derive(Default)]
struct Part {
    records: ScanRecords,
    missing: Vec<MissingReference>,
    scanned: u64,
}

impl Default for Sink {
    /// A part for each thread of the pool it is made in.
    fn default() -> Self {
        let threads = rayon::current_num_threads().max(1);
        Sink {
            parts: (0..threads).map(|_| ThreadPart::default()).collect(),
        }
    }
}

impl Sink {
    /// The calling thread's part.
    fn part(&self) -> MutexGuard<'_, Part> {
        let i = rayon::current_thread_index().unwrap_or(0) % self.parts.len();
        self.parts[i].lock()
    }

    /// Takes what was recorded so far (a batch's sink may be shared by
    /// threads still working on other batches), leaving it empty.
    fn take_parts(&self) -> (ScanRecords, Vec<MissingReference>, u64) {
        let mut whole = Part::default();
        for part in &self.parts {
            let part = std::mem::take(&mut *part.lock());
            whole.records.extend(part.records);
            whole.missing.extend(part.missing);
            whole.scanned += part.scanned;
        }
        (whole.records, whole.missing, whole.scanned)
    }
}

/// The scan's running totals and its checkpoint.
struct Batches<'a> {
    checkpoint: ScanCheckpoint,
    hooks: &'a StopPoints,
    limits: BatchLimits,
    totals: ScanRecords,
    missing: Vec<MissingReference>,
    scanned: u64,
}

impl Batches<'_> {
    /// Ends a batch: its records become durable, then count as scanned.
    /// A batch that found missing objects is not checkpointed: the run is
    /// refused anyway, and a later one must find them again.
    fn finish(&mut self, sink: &Sink) -> Result<(), ConvertError> {
        self.take_in(std::slice::from_ref(sink), phase::SCAN_BATCH)
    }

    /// Makes durable what `sinks` recorded so far, their batches still
    /// going on (`flush_clock.rs`); the batches' ends take the rest.
    fn flush_partial(&mut self, sinks: &[Sink]) -> Result<(), ConvertError> {
        self.take_in(sinks, phase::SCAN_PART)
    }

    /// Takes what `sinks` recorded into the checkpoint (then kill point
    /// `kill_at`) and the totals.
    fn take_in(&mut self, sinks: &[Sink], kill_at: &str) -> Result<(), ConvertError> {
        let (mut records, mut missing, mut scanned) = (ScanRecords::default(), Vec::new(), 0);
        for sink in sinks {
            let (r, m, s) = sink.take_parts();
            records.extend(r);
            missing.extend(m);
            scanned += s;
        }
        if missing.is_empty() && !records.named.is_empty() {
            self.checkpoint.append(&records)?;
            self.hooks.kill_point(kill_at);
        }
        // The name notes are in the table already (noted as each tree was
        // read) and durable in the checkpoint: nothing reads them from the
        // totals, which held them to the end of the scan (git.git: 9.6
        // million notes, 154 MB, and as much again while the vector grew).
        records.names = Vec::new();
        self.totals.extend(records);
        self.missing.extend(missing);
        self.scanned += scanned;
        Ok(self.hooks.check_interrupt()?)
    }
}

/// What a worker needs to take in one decoded object.
struct Scanner<'a> {
    table: &'a ObjectTable,
    opts: TranslateOptions,
    hooks: &'a StopPoints,
    progress: &'a dyn Progress,
    /// Set once a reference was found missing: from then on no tree takes
    /// its base's word for its entries (`record`).
    missing_seen: AtomicBool,
    /// Record a tree's file entries as edges too (a ref selection).
    blob_edges: bool,
}

impl Scanner<'_> {
    /// Stops on Ctrl-C, checks the object's name (read from `file`), then
    /// records it in `sink`. `base` is the body of the tree a tree was
    /// just rebuilt on, when that tree was recorded before it (by this run
    /// or, restored from the checkpoint, by an earlier one).
    fn take(
        &self,
        sink: &Sink,
        at: u32,
        kind: ObjectKind,
        body: &[u8],
        base: Option<(u32, &[u8])>,
        file: impl Fn() -> String,
    ) -> Result<(), ConvertError> {
        if self.hooks.interrupted() {
            return Err(Interrupted.into());
        }
        let direction = self.table.direction();
        check_name(
            direction.source(),
            &self.table.source_id(at),
            kind,
            body,
            &file,
        )?;
        // A blob's bytes are the same in DEST: its DEST name is known now.
        let blob_name = match kind {
            ObjectKind::Blob => Some(dest_name(
                direction.dest(),
                &self.table.source_id(at),
                body,
                &file,
            )?),
            _ => None,
        };
        let base = base.filter(|_| !self.missing_seen.load(Ordering::Acquire));
        let missing = record(self, sink, (at, kind, body), blob_name, base)?;
        if missing {
            self.missing_seen.store(true, Ordering::Release);
        }
        self.progress.advance(1);
        Ok(())
    }
}

/// Scans every pack and loose object without a map row into `table`,
/// checkpointing each finished batch to `checkpoint_path` and taking the
/// batches an interrupted run finished from there.
pub fn scan(
    run: &Run<'_>,
    table: &mut ObjectTable,
    checkpoint_path: &Path,
) -> Result<ScanOutcome, ConvertError> {
    let (inventory, opts, hooks, progress) =
        (run.inventory, run.translate, run.stops, run.progress);
    table.set_name_hash_version(run.opts.name_hash_version);
    let blob_edges = run.selection.is_some();
    let (checkpoint, restored) = ScanCheckpoint::open(
        checkpoint_path,
        &checkpoint_fingerprint(table, blob_edges),
        table.len() as u64,
        table.direction(),
    )?;
    let mut batches = Batches {
        checkpoint,
        hooks,
        limits: batch_limits(hooks),
        totals: ScanRecords::default(),
        missing: Vec::new(),
        scanned: 0,
    };
    let (restored, done) = keep_planned(table, restored);
    let objects_restored = restored.named.len() as u64;
    batches.totals.extend(restored);

    // New objects per pack (the last slot counts loose ones).
    let mut new_in = vec![Vec::new(); inventory.packs.len() + 1];
    for i in table
        .indices()
        .filter(|&i| table.is_planned(i) && !done[i as usize])
    {
        match table.location(i) {
            Location::Packed { pack, .. } => new_in[pack as usize].push(i),
            Location::Loose { .. } => new_in[inventory.packs.len()].push(i),
        }
    }
    let total_new: usize = new_in.iter().map(Vec::len).sum();
    progress.start("hashing objects", Some(total_new as u64));
    {
        let table_ref: &ObjectTable = table;
        let scanner = Scanner {
            table: table_ref,
            opts,
            hooks,
            progress,
            missing_seen: AtomicBool::new(false),
            blob_edges,
        };
        let cx = PackScan {
            inventory,
            table: table_ref,
            scanner: &scanner,
            done: &done,
        };
        for (pack_no, pack) in inventory.packs.iter().enumerate() {
            let new = &mut new_in[pack_no];
            if new.is_empty() {
                continue;
            }
            if new.len() * TRAVERSE_FRACTION < pack.idx.num_objects() as usize {
                cx.by_offset(pack, new, &mut batches)?;
            } else {
                cx.by_traversal(pack_no, pack, &mut batches)?;
            }
        }
        cx.loose(&new_in[inventory.packs.len()], &mut batches)?;
    }
    let Batches {
        totals,
        missing,
        scanned,
        ..
    } = batches;
    for &(at, kind, blob_name, size) in &totals.named {
        table.set_kind(at, kind);
        table.set_size(at, size);
        if let Some(id) = blob_name {
            table.set_dest(at, id);
        }
    }
    if let Some(at) = table.indices().find(|&i| table.kind(i).is_none()) {
        // Every idx entry must have been reached by the traversal.
        return Err(CorruptInput::NotDecoded {
            id: table.source_id(at),
        }
        .into());
    }
    progress.finish();
    Ok(ScanOutcome {
        edges: totals.edges,
        missing,
        gitlinks: totals.gitlinks,
        mergetags: totals.mergetags,
        leaned: totals.leaned,
        bytes_inflated: totals.bytes,
        objects_scanned: scanned,
        objects_restored,
    })
}

/// What scanning the new objects of one pack, or the loose ones, reads.
struct PackScan<'a> {
    inventory: &'a Inventory,
    table: &'a ObjectTable,
    scanner: &'a Scanner<'a>,
    /// Objects an interrupted run's checkpoint restored.
    done: &'a [bool],
}

impl PackScan<'_> {
    /// A pack holding few new objects: each is read by itself, in offset
    /// order, through the read cache.
    fn by_offset(
        &self,
        pack: &Pack,
        new: &mut [u32],
        batches: &mut Batches<'_>,
    ) -> Result<(), ConvertError> {
        let (inventory, table) = (self.inventory, self.table);
        let pack_path = pack.data.path();
        new.sort_unstable_by_key(|&i| table.location(i).offset());
        for batch in new.chunks(batches.limits.objects) {
            let sink = Sink::default();
            batch.par_iter().try_for_each(|&at| {
                let mut body = Vec::new();
                let kind = read_cache::read(inventory, table, at, &mut body)?;
                self.scanner.take(&sink, at, kind, &body, None, || {
                    pack_path.display().to_string()
                })
            })?;
            batches.finish(&sink)?;
        }
        Ok(())
    }

    /// A pack whose new objects are most of it: one parallel traversal of
    /// its delta trees, batch by batch, skipping the batches an earlier
    /// run finished.
    fn by_traversal(
        &self,
        pack_no: usize,
        pack: &Pack,
        batches: &mut Batches<'_>,
    ) -> Result<(), ConvertError> {
        let (inventory, table, done) = (self.inventory, self.table, self.done);
        let pack_path = pack.data.path();
        let plan = pack.plan_traversal(batches.limits)?;
        // Whether this pack's entry at `offset` is an object to scan
        // here: new, not restored, and stored here first.
        let wanted = |at: u32, offset: u64| {
            table.is_planned(at)
                && !done[at as usize]
                && table.location(at)
                    == (Location::Packed {
                        pack: pack_no as u32,
                        offset,
                    })
        };
        let table_index = |index: u32| {
            table
                .find(&pack.idx.oid_at(index))
                .expect("every idx entry is in the table")
        };
        let external = |id: &ObjectId| inventory.read_external(table, id);
        // Batches finished by an earlier run are skipped.
        let todo: Vec<usize> = (0..plan.batch_count())
            .filter(|&b| {
                plan.batch_objects(b)
                    .any(|(index, offset)| wanted(table_index(index), offset))
            })
            .collect();
        let sinks: Vec<Sink> = (0..plan.batch_count()).map(|_| Sink::default()).collect();
        let clock = FlushClock::new(batches.hooks.scan_flush_objects);
        let finisher = Mutex::new(batches);
        let lock = || finisher.lock().expect("no panics while holding the lock");
        pack.traverse_batches(
            &plan,
            &todo,
            &external,
            &|index, offset, kind, body, base| {
                let at = table_index(index);
                if !wanted(at, offset) {
                    return Ok(());
                }
                // The base was recorded first: here, just before, or
                // by the run whose checkpoint restored it.
                let base =
                    base.filter(|_| kind == ObjectKind::Tree)
                        .and_then(|(index, offset, body)| {
                            let base = table_index(index);
                            let restored = table.is_planned(base) && done[base as usize];
                            (restored || wanted(base, offset)).then_some((base, body))
                        });
                let sink = &sinks[plan.batch_of(index)];
                self.scanner.take(sink, at, kind, body, base, || {
                    pack_path.display().to_string()
                })?;
                match clock.claim() {
                    true => lock().flush_partial(&sinks),
                    false => Ok(()),
                }
            },
            &|b| lock().finish(&sinks[b]),
        )?;
        Ok(())
    }

    /// The new loose objects, batch by batch.
    fn loose(&self, new: &[u32], batches: &mut Batches<'_>) -> Result<(), ConvertError> {
        let (inventory, table) = (self.inventory, self.table);
        for batch in new.chunks(batches.limits.objects) {
            let sink = Sink::default();
            batch
                .par_iter()
                .try_for_each(|&at| -> Result<(), ConvertError> {
                    let id = table.source_id(at);
                    let Location::Loose { dir } = table.location(at) else {
                        unreachable!("only loose objects are listed here")
                    };
                    let (kind, body) =
                        loose::read_loose(&inventory.object_dirs[dir as usize], &id)?;
                    self.scanner.take(&sink, at, kind, &body, None, || {
                        inventory.loose_path(dir, &id).display().to_string()
                    })
                })?;
            batches.finish(&sink)?;
        }
        Ok(())
    }
}

/// Batch limits for this run: scaled by worker threads so a batch stays
/// about a second of wall time on any machine.
fn batch_limits(hooks: &StopPoints) -> BatchLimits {
    let threads = rayon::current_num_threads().max(1);
    match hooks.scan_batch_objects {
        Some(n) => BatchLimits {
            objects: n as usize,
            compressed_bytes: u64::MAX,
        },
        None => BatchLimits {
            objects: BATCH_OBJECTS_PER_THREAD * threads,
            compressed_bytes: BATCH_BYTES_PER_THREAD * threads as u64,
        },
    }
}

/// What a scan checkpoint is valid for: the object set, the name hash
/// version its notes were taken for (a run with another `--name-hash-version`
/// scans again), and whether it holds blob edges.
fn checkpoint_fingerprint(table: &ObjectTable, blob_edges: bool) -> [u8; 32] {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    hasher.update(table.fingerprint());
    hasher.update([table.name_hash_version() as u8]);
    if blob_edges {
        hasher.update(b"blob edges");
    }
    hasher.finalize().into()
}

/// The restored records that still matter: those of the objects this run
/// plans (new ones, and those an interrupted run wrote into segments not
/// folded yet). The name hashes they noted are applied to the table now.
/// Returns them and which table entries they cover.
fn keep_planned(table: &ObjectTable, restored: ScanRecords) -> (ScanRecords, Vec<bool>) {
    let mut done = vec![false; table.len()];
    for &(at, note) in &restored.names {
        table.note_name(at, note);
    }
    let planned = |at: u32| table.is_planned(at);
    let named: Vec<Named> = restored
        .named
        .into_iter()
        .filter(|&(at, ..)| planned(at))
        .collect();
    for &(at, ..) in &named {
        done[at as usize] = true;
    }
    let kept = ScanRecords {
        named,
        edges: restored
            .edges
            .into_iter()
            .filter(|&(dependent, _)| planned(dependent))
            .collect(),
        gitlinks: restored
            .gitlinks
            .into_iter()
            .filter(|link| planned(link.tree))
            .collect(),
        mergetags: restored
            .mergetags
            .into_iter()
            .filter(|tag| planned(tag.commit))
            .collect(),
        leaned: restored
            .leaned
            .into_iter()
            .filter(|&(tree, _)| planned(tree))
            .collect(),
        // Applied above.
        names: Vec::new(),
        // Inflated bytes are counted for what this run decodes only.
        bytes: 0,
    };
    (kept, done)
}

/// An object size as the table keeps it: 4 bytes, saturated (only used to
/// budget memory, never to read).
fn saturated_size(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

/// Checks that `body` hashes to `expected` in SOURCE's hash (`hash`), with
/// collision detection for SHA-1.
fn check_name(
    hash: HashKind,
    expected: &ObjectId,
    kind: ObjectKind,
    body: &[u8],
    file: impl Fn() -> String,
) -> Result<(), ConvertError> {
    let actual = object_id(hash, kind, body).map_err(|c| CorruptInput::Collision {
        id: *expected,
        file: file(),
        detail: c.to_string(),
    })?;
    if actual != *expected {
        return Err(CorruptInput::HashMismatch {
            expected: *expected,
            actual,
            file: file(),
        }
        .into());
    }
    Ok(())
}

/// The DEST name (in `hash`) of blob `id`, whose bytes are `body`: a SHA-1
/// name is computed with collision detection, and a blob that shows an
/// attack is refused by name, as git refuses to store it.
fn dest_name(
    hash: HashKind,
    id: &ObjectId,
    body: &[u8],
    file: impl Fn() -> String,
) -> Result<ObjectId, ConvertError> {
    object_id(hash, ObjectKind::Blob, body).map_err(|c| {
        CorruptInput::Collision {
            id: *id,
            file: file(),
            detail: format!("named in {hash}, {c}"),
        }
        .into()
    })
}

/// Records object `at` of `kind` (its bytes `body`), named `blob_name` in
/// DEST when it is a blob, in `sink`; `base` as in [`Scanner::take`].
/// Returns whether a reference it makes is missing.
fn record(
    scanner: &Scanner<'_>,
    sink: &Sink,
    (at, kind, body): (u32, ObjectKind, &[u8]),
    blob_name: Option<ObjectId>,
    base: Option<(u32, &[u8])>,
) -> Result<bool, ConvertError> {
    let (table, opts, blob_edges) = (scanner.table, scanner.opts, scanner.blob_edges);
    let named = (at, kind, blob_name, saturated_size(body.len()));
    let taken = |part: &mut Part| {
        part.scanned += 1;
        part.records.bytes += body.len() as u64;
        part.records.named.push(named);
    };
    if kind == ObjectKind::Blob {
        taken(&mut sink.part());
        return Ok(false);
    }
    let holder = table.source_id(at);
    if opts.strict_headers && kind == ObjectKind::Commit {
        refuse_unknown_headers(holder, body, opts)?;
    }
    let bad = |e| CorruptInput::Malformed {
        id: holder,
        kind,
        reason: format!("{e}"),
    };
    let mut edges = Vec::new();
    let mut missing = Vec::new();
    let mut gitlinks = Vec::new();
    let mut mergetags = Vec::new();
    let mut names = Vec::new();
    let mut leaned = None;
    let mut note = |id: ObjectId, role: ReferenceRole, name: Option<&[u8]>| match table.find(&id) {
        Some(dep) => edges.push((at, dep)),
        None if well_known_pair(&id).is_some() => {}
        None if matches!(role, ReferenceRole::TreeEntry { gitlink: true }) => {
            gitlinks.push(UnmappedGitlink {
                tree: at,
                name: name.unwrap_or_default().to_vec(),
                target: id,
            })
        }
        None if role == ReferenceRole::MergetagObject => mergetags.push(UnmappedMergetag {
            commit: at,
            target: id,
        }),
        None => missing.push(MissingReference {
            holder,
            holder_kind: kind,
            missing: id,
            role,
            reached_from: Default::default(),
        }),
    };
    if kind == ObjectKind::Tree {
        // An entry of the base tree, byte for byte, was found when the base
        // was recorded, and noted with a note no larger than this tree's
        // (the same under name hash version 1; under version 2 a note
        // leads with the naming tree's table index, and the table keeps
        // the smallest): such a file entry asks nothing of the table.
        // Directories still give their edges; nothing is skipped once a
        // reference was missing.
        let source = table.direction().source();
        let id_len = source.raw_len();
        let base_at = base.map(|(base_at, _)| base_at);
        let mut shared = base
            .filter(|&(base_at, _)| match table.name_hash_version() {
                NameHashVersion::V1 => true,
                NameHashVersion::V2 => base_at < at,
            })
            .map(|(_, base)| SharedEntries::new(base, body, id_len));
        table.with_recent(|recent| {
            for entry in tree_entries(body, source) {
                let entry = entry.map_err(bad)?;
                let mode = TreeMode::parse(entry.mode);
                if let Some(shared) = shared.as_mut().filter(|_| mode.is_blob()) {
                    let start = entry.head.as_ptr() as usize - body.as_ptr() as usize;
                    if shared.contains(start, start + entry.head.len() + id_len) {
                        leaned = base_at.filter(|_| blob_edges);
                        continue;
                    }
                }
                let gitlink = mode.is_gitlink();
                let role = ReferenceRole::TreeEntry { gitlink };
                // Regular-file and symlink modes name blobs: no ordering edge needed.
                let name = entry.name;
                let upper = table.name_note_upper(at, name);
                let name_note = || table.name_note(at, name);
                let found = recent.find_and_note(&entry.id, upper, name_note, &mut names);
                // A file entry found asks for no ordering edge; a ref
                // selection's walk needs it (one lookup more, then).
                if mode.is_blob() && found.is_some() && !blob_edges {
                    continue;
                }
                note(entry.id, role, Some(name));
            }
            Ok::<_, ConvertError>(())
        })?;
    } else {
        let source = table.direction().source();
        for_each_reference(kind, body, source, |id, role| note(id, role, None)).map_err(bad)?;
    }
    let missed = !missing.is_empty();
    let mut part = sink.part();
    taken(&mut part);
    part.records.edges.extend(edges);
    part.missing.extend(missing);
    part.records.gitlinks.extend(gitlinks);
    part.records.mergetags.extend(mergetags);
    part.records.names.extend(names);
    part.records.leaned.extend(leaned.map(|base| (at, base)));
    Ok(missed)
}

/// Under `--strict-headers`, a commit with a header field git does not know
/// is refused during the scan, before anything is written. The check runs
/// the real commit translator with an identity map, so it refuses exactly
/// what the map pass would.
fn refuse_unknown_headers(
    id: ObjectId,
    body: &[u8],
    opts: TranslateOptions,
) -> Result<(), ConvertError> {
    let identity = |id: &ObjectId| Some(*id);
    let hash = id.kind();
    // Only the headers are in question here: a mergetag naming an object
    // of the other hash is the plan's to settle (`plan/mergetags.rs`).
    let opts = TranslateOptions {
        verbatim_mergetags: true,
        ..opts
    };
    let mut scratch = Vec::new();
    translate_commit(body, hash, hash, &identity, opts, &mut scratch)
        .map(|_| ())
        .map_err(|source| {
            ConvertError::from(CorruptInput::Translate {
                id,
                kind: ObjectKind::Commit,
                source,
            })
        })
}
