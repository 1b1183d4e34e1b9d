//! Segmented output: the objects of a run go into a sequence of packs
//! ("segments"), each finished (renamed into place, fsynced) and then
//! journaled in the map database in one transaction with the map rows of
//! its objects.
//!
//! That transaction is the checkpoint. After an interruption at any
//! instant, DEST holds finished packs whose objects all have rows (plus,
//! at most, one renamed pack whose rows were not committed and a temporary
//! pack: the next run deletes both), and the map is closed under
//! references because objects arrive here in dependency order (blobs, then
//! the map pass's waves) and segments commit in order. Segments are sized
//! to a few seconds of work, which bounds what an interruption loses.
//!
//! Finishing a segment (trailer, `.idx` and `.rev`, `fsync`, rename, the
//! SQLite commit of its rows) runs on a thread of its own while the next
//! segment fills: most of it is waiting for the disk, which the appender,
//! the one sequential part of a pass, should not do. One finish is in
//! flight at a time and the next waits for it, so segments still commit in
//! order and an interruption still finds at most one renamed, uncommitted
//! pack and one temporary one.

use std::path::PathBuf;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

use super::ConvertError;
use super::resume_hooks::{Checkpoints, phase};
use super::segment_index::SegmentIndex;
use super::table::ObjectTable;
use crate::hash::{HashKind, ObjectId};
use crate::idmap::{IdMap, MapRow, RunId};
use crate::object::ObjectKind;
use crate::pack::write::PackWriter;

/// Work per segment: the most an interruption can lose.
pub const SEGMENT_TIME: Duration = Duration::from_secs(3);
/// Bounds on objects per segment, whatever the measured rate.
const MIN_SEGMENT: u32 = 256;
/// The ceiling also bounds what a segment holds in memory (its objects'
/// table positions, places and index entries, ~65 bytes an object, twice
/// while one finishes in the background): a fast phase on a huge
/// repository would otherwise aim at millions of objects a segment.
const MAX_SEGMENT: u32 = 1 << 20;
/// Objects in the first segment, before a rate is known.
const FIRST_SEGMENT: u32 = 4096;
/// A segment holds at most this many times the objects of the one before.
const GROWTH: u64 = 4;

struct OpenSegment {
    pack: PackWriter,
    count: u32,
    /// The table positions of its objects, in the order written: their
    /// map rows are read from the table when the segment commits (the
    /// names are set by then), instead of ~70 bytes an object held here.
    objects: Vec<u32>,
    /// Each object's entry number in the pack (where it starts) and the
    /// length of its delta chain (0: whole), by name: a delta may only name
    /// a base in its own pack (a repository's packs are never thin), whose
    /// chain is shorter than the depth limit.
    places: SegmentIndex,
    started: Instant,
}

/// What the segments of a run added up to.
#[derive(Debug, Default, Clone)]
pub struct SegmentsOutcome {
    pub packs: u32,
    pub objects: u64,
    pub bytes: u64,
}

/// A finished segment: what it adds to the outcome.
struct Finished {
    objects: u32,
    bytes: u64,
}

/// The map database, with the finisher thread (which commits to it) or
/// here, idle.
enum MapSlot<'scope, 'a> {
    Idle(&'a mut IdMap),
    Finishing(ScopedJoinHandle<'scope, Result<(&'a mut IdMap, Finished), ConvertError>>),
    /// A finish failed: its error was returned, nothing more is committed.
    Lost,
}

/// Appends objects to the current segment, finishing and journaling each
/// one (in the background) when it holds its planned number of objects.
pub struct SegmentWriter<'scope, 'a> {
    dir: PathBuf,
    scope: &'scope Scope<'scope, 'a>,
    map: MapSlot<'scope, 'a>,
    table: &'a ObjectTable,
    run: RunId,
    hooks: &'a Checkpoints,
    /// Objects this run still has to write; the last segment holds exactly
    /// the rest.
    remaining: u64,
    /// `--depth`: the longest delta chain written.
    max_depth: u32,
    target: u32,
    current: Option<OpenSegment>,
    pub outcome: SegmentsOutcome,
}

impl<'scope, 'a> SegmentWriter<'scope, 'a> {
    /// `scope` runs the finisher thread; it must end after
    /// [`SegmentWriter::finish`] (the scope joins a finish left running by
    /// an error). `table` names the objects written (their rows are read
    /// from it at each commit).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        dir: PathBuf,
        scope: &'scope Scope<'scope, 'a>,
        map: &'a mut IdMap,
        table: &'a ObjectTable,
        run: RunId,
        hooks: &'a Checkpoints,
        total: u64,
        max_depth: u32,
    ) -> Self {
        SegmentWriter {
            dir,
            scope,
            map: MapSlot::Idle(map),
            table,
            run,
            remaining: total,
            max_depth,
            target: hooks.segment_objects.unwrap_or(FIRST_SEGMENT),
            hooks,
            current: None,
            outcome: SegmentsOutcome::default(),
        }
    }

    /// Appends table object `at`, named already, whole, its zlib stream
    /// ready (see [`PackWriter::add_compressed`]).
    pub fn add_compressed(
        &mut self,
        at: u32,
        kind: ObjectKind,
        size: u64,
        zlib: &[u8],
    ) -> Result<(), ConvertError> {
        let sha256 = name_of(self.table, at);
        let segment = self.open()?;
        segment.pack.add_compressed(sha256, kind, size, zlib)?;
        self.added(at, sha256, 0)
    }

    /// Appends table object `at` as a delta whose zlib stream is ready
    /// (copied from the source pack: blob deltas are the same in both hash
    /// worlds) against table object `base`, both named, if `base` is in the
    /// current segment and its chain is shorter than the depth limit.
    /// Returns false, writing nothing, when it is not; the caller then
    /// writes the object whole (or as a delta of another base).
    pub fn add_delta_compressed(
        &mut self,
        at: u32,
        base: u32,
        delta_size: u64,
        zlib: &[u8],
    ) -> Result<bool, ConvertError> {
        let (max_depth, table) = (self.max_depth, self.table);
        let (sha256, base) = (name_of(table, at), name_of(table, base));
        let segment = self.open()?;
        let objects = &segment.objects;
        let name_at = |p: u32| name_of(table, objects[p as usize]);
        let Some((base_entry, base_depth)) = segment.places.get(&base, name_at) else {
            return Ok(false);
        };
        if base_depth >= max_depth {
            return Ok(false);
        }
        let base_offset = segment.pack.entry_offset(base_entry);
        segment
            .pack
            .add_ofs_delta_compressed(sha256, base_offset, delta_size, zlib)?;
        self.added(at, sha256, base_depth + 1)?;
        Ok(true)
    }

    /// Bookkeeping after an object entered the open segment.
    fn added(&mut self, at: u32, sha256: ObjectId, depth: u32) -> Result<(), ConvertError> {
        let segment = self
            .current
            .as_mut()
            .expect("an object was just added to it");
        segment.places.push(sha256, depth);
        segment.objects.push(at);
        let full = segment.pack.entries_written() == segment.count;
        self.remaining -= 1;
        self.hooks.kill_point(phase::OBJECT);
        if full {
            self.finish_segment()?;
        }
        Ok(())
    }

    /// Between chunks: stops at Ctrl-C. Whatever the open segment holds is
    /// discarded (its temporary pack is removed) and redone by the next run.
    pub fn checkpoint(&self) -> Result<(), ConvertError> {
        self.hooks.check_interrupt()
    }

    /// Ends the run's output, once the last segment is committed; every
    /// planned object must have been added.
    pub fn finish(mut self) -> Result<SegmentsOutcome, ConvertError> {
        debug_assert!(self.current.is_none() && self.remaining == 0);
        self.reclaim_map()?;
        Ok(self.outcome)
    }

    fn open(&mut self) -> Result<&mut OpenSegment, ConvertError> {
        if self.current.is_none() {
            let count = u64::from(self.target).min(self.remaining) as u32;
            let pack = PackWriter::create(&self.dir, HashKind::Sha256, count)?;
            self.current = Some(OpenSegment {
                pack,
                count,
                objects: Vec::with_capacity(count as usize),
                places: SegmentIndex::with_capacity(count as usize),
                started: Instant::now(),
            });
        }
        Ok(self.current.as_mut().expect("opened above"))
    }

    fn finish_segment(&mut self) -> Result<(), ConvertError> {
        let mut segment = self.current.take().expect("a segment is open");
        // No delta can name this segment's objects any more.
        segment.places = SegmentIndex::default();
        if self.hooks.segment_objects.is_none() {
            // Aim the next segment at SEGMENT_TIME at the rate just seen,
            // growing at most GROWTH-fold: a rate measured on quickly copied
            // blobs says little about the trees that follow them, and
            // smaller segments let their finishing overlap the work.
            let secs = segment.started.elapsed().as_secs_f64().max(1e-3);
            let rate = f64::from(segment.count) / secs;
            let by_rate = (rate * SEGMENT_TIME.as_secs_f64()) as u64;
            self.target = by_rate
                .min(u64::from(segment.count) * GROWTH)
                .clamp(MIN_SEGMENT.into(), MAX_SEGMENT.into()) as u32;
        }
        let map = self.reclaim_map()?;
        let (run, hooks, table) = (self.run, self.hooks, self.table);
        let finishing = self.scope.spawn(move || {
            let finished = finish_and_commit(segment, map, table, run, hooks)?;
            Ok((map, finished))
        });
        self.map = MapSlot::Finishing(finishing);
        Ok(())
    }

    /// Waits for the segment being finished, if any, and takes the map
    /// back; a failed finish's error comes out here.
    fn reclaim_map(&mut self) -> Result<&'a mut IdMap, ConvertError> {
        match std::mem::replace(&mut self.map, MapSlot::Lost) {
            MapSlot::Idle(map) => Ok(map),
            MapSlot::Finishing(handle) => {
                let (map, finished) = handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
                self.outcome.packs += 1;
                self.outcome.objects += u64::from(finished.objects);
                self.outcome.bytes += finished.bytes;
                Ok(map)
            }
            MapSlot::Lost => unreachable!("a failed finish ends the run"),
        }
    }
}

/// The SHA-256 name of table object `at`: the passes name every object
/// before they write it.
fn name_of(table: &ObjectTable, at: u32) -> ObjectId {
    table
        .sha256(at)
        .expect("objects are named before they are written")
}

/// Writes a full segment's trailer and indexes, renames it into place and
/// commits its rows: the checkpoint.
fn finish_and_commit(
    mut segment: OpenSegment,
    map: &mut IdMap,
    table: &ObjectTable,
    run: RunId,
    hooks: &Checkpoints,
) -> Result<Finished, ConvertError> {
    let written = segment.pack.finish()?;
    hooks.kill_point(phase::PACK_RENAMED);
    let stem = written
        .pack_path
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("pack names are ASCII")
        .to_string();
    // The table is in SHA-1 order: sorted positions are rows in key order.
    segment.objects.sort_unstable();
    let rows = segment.objects.iter().map(|&at| MapRow {
        sha1: table.sha1(at),
        sha256: name_of(table, at),
        kind: table
            .kind(at)
            .expect("objects are scanned before they are written"),
    });
    map.commit_segment(run, &stem, rows, written.pack_size, &|| {
        hooks.kill_point(phase::IN_COMMIT)
    })?;
    hooks.kill_point(phase::COMMITTED);
    Ok(Finished {
        objects: written.num_objects,
        bytes: written.pack_size,
    })
}
