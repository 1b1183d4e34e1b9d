//! Segmented output: the objects of a run go into sequences of packs
//! ("segments"), each finished (renamed into place, fsynced) and then
//! journaled in the map database in one transaction with the map rows of
//! its objects (`commit_order.rs`).
//!
//! That transaction is the checkpoint. After an interruption at any
//! instant, DEST holds journaled packs (whose objects have rows, or wait
//! for the blobs they name with their rows kept apart, `commit_order.rs`), plus
//! renamed packs that were not journaled and temporary packs: the next run
//! deletes those. The map is closed under references because objects
//! arrive in dependency order within a sequence, segments are journaled in
//! order, and the map pass's rows join the map only once every blob
//! segment has. Segments are sized to a few seconds of work, which bounds
//! what an interruption loses.
//!
//! A segment is thin: a delta is a REF_DELTA whose base may be in any
//! segment of the conversion, earlier or later. Nothing but the finish step
//! (`convert/finish/`) reads segments; it copies them into one pack and
//! deletes them.
//!
//! Two sequences are written at once, the blobs and the map pass's trees,
//! commits and tags, each by its own [`SegmentWriter`]: the append (the pack
//! stream and its SHA-256) is the one sequential part of a pass, and two of
//! them run side by side where one would queue the other's output in memory.
//!
//! Finishing a segment (trailer, `.idx` and `.rev`, `fsync`, rename, the
//! SQLite commit of its rows) runs on a thread of its own while the next
//! segment fills: most of it is waiting for the disk, which the appender
//! should not do. One finish per writer is in flight at a time and the next
//! waits for it, so a sequence's segments still commit in order.

use std::path::PathBuf;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

use crate::convert::error::ConvertError;
use crate::convert::phase;
use crate::convert::segments::commit_order::{Journal, Renamed};
use crate::object::ObjectKind;
use crate::pack::PackWriter;
use crate::pipeline::Interrupted;

/// Work per segment: what an interruption loses of each sequence, besides
/// the chunk being prepared. A second rather than three: a segment is
/// finished in the background beside the work, and at 80% of tokio's run
/// a kill then cost 0.27 of the run's CPU time instead of 0.38.
pub const SEGMENT_TIME: Duration = Duration::from_secs(1);
/// The work of appending an object, as the bytes of its body plus this:
/// what a segment's size is planned in. Most of a write pass's time goes
/// to reading, diffing, translating and deflating bodies, so their bytes
/// predict it where a count of objects does not: on tokio, a run of 4096
/// versions of one changelog took 30 times as long as the 4096 blobs
/// before it. The constant stands for what every object costs whatever
/// its size (lookups, hashing, the entry itself).
const PER_OBJECT: u64 = 1 << 10;
/// Work in the first segment, before a rate is known.
const FIRST_WORK: u64 = 32 << 20;
/// A segment holds at most this many times the work of the one before.
const GROWTH: u64 = 4;
/// Bounds on objects per segment, whatever the measured rate. The
/// ceiling also bounds what a segment holds in memory (its objects'
/// table positions, places and index entries, ~65 bytes an object, twice
/// per sequence while one finishes in the background): a fast phase on a
/// huge repository would otherwise aim at millions of objects a segment.
const MIN_SEGMENT: u32 = 16;
const MAX_SEGMENT: u32 = 1 << 20;
/// A segment holds at most this share of its sequence (but at least
/// [`SHARE_FLOOR`] objects), so what the open segments hold stays a small
/// part of a run's memory at any size. Sized by time alone, a 100k-object
/// run's last map-pass segment held 50k of its 71k objects (3 MiB of a
/// 37 MiB peak, a share no larger repository pays), while at 2M objects the
/// time bound already keeps segments near an eighth of their sequence.
const SEQUENCE_SHARE: u64 = 8;
const SHARE_FLOOR: u32 = 4096;

/// The most objects a segment of a sequence of `total` objects holds.
fn segment_ceiling(total: u64) -> u32 {
    (total / SEQUENCE_SHARE).clamp(SHARE_FLOOR.into(), MAX_SEGMENT.into()) as u32
}

/// The work of appending an object whose body is `size` bytes.
fn work_of(size: u32) -> u64 {
    u64::from(size) + PER_OBJECT
}

struct OpenSegment {
    pack: PackWriter,
    count: u32,
    /// The work its objects were planned as ([`work_of`]).
    work: u64,
    /// The table positions of its objects, in the order written: their
    /// map rows are read from the table when the segment commits (the
    /// names are set by then), instead of ~70 bytes an object held here.
    objects: Vec<u32>,
}

/// What the segments of a run added up to.
#[derive(Debug, Default, Clone)]
pub struct SegmentsOutcome {
    pub packs: u32,
    pub bytes: u64,
}

/// Appends objects to the current segment of one sequence, finishing and
/// journaling each segment (in the background) when it holds its planned
/// number of objects: as many of the next objects of the sequence as the
/// rate measured on the segment before appends in [`SEGMENT_TIME`].
pub struct SegmentWriter<'scope, 'a> {
    dir: PathBuf,
    scope: &'scope Scope<'scope, 'a>,
    journal: &'a Journal<'a>,
    /// 0: the blobs; 1: the map pass (its rows join the map after every
    /// blob segment's).
    sequence: usize,
    /// The segment being finished, if any; it returns its pack's size.
    finishing: Option<ScopedJoinHandle<'scope, Result<u64, ConvertError>>>,
    /// The objects this sequence appends, in order, and how many were.
    order: &'a [u32],
    appended: usize,
    /// The work to plan the next segment for ([`work_of`]), and when the
    /// segment before ended: the work of a segment is done between the
    /// end of the one before and its own (a pass appends a chunk in one
    /// burst once it is prepared, so the time from a segment's first
    /// append would leave out the preparing, and a segment filled within
    /// one burst would seem to take no time at all).
    target: u64,
    since: Instant,
    /// [`segment_ceiling`] of this sequence.
    ceiling: u32,
    current: Option<OpenSegment>,
    outcome: SegmentsOutcome,
}

impl<'scope, 'a> SegmentWriter<'scope, 'a> {
    /// `scope` runs the finisher thread; it must end after
    /// [`SegmentWriter::finish`] (the scope joins a finish left running by
    /// an error). The writer of `sequence` appends `order`, in order: the
    /// objects the journal expects of it.
    pub fn new(
        dir: PathBuf,
        scope: &'scope Scope<'scope, 'a>,
        journal: &'a Journal<'a>,
        sequence: usize,
        order: &'a [u32],
    ) -> Self {
        debug_assert_eq!(order.len() as u64, journal.total(sequence));
        SegmentWriter {
            dir,
            scope,
            journal,
            sequence,
            finishing: None,
            order,
            appended: 0,
            target: FIRST_WORK,
            since: Instant::now(),
            ceiling: segment_ceiling(order.len() as u64),
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
        let sha256 = self.journal.table().written_name(at);
        let segment = self.open()?;
        segment.pack.add_compressed(sha256, kind, size, zlib)?;
        self.added(at)
    }

    /// Appends table object `at` as a delta whose zlib stream is ready
    /// against table object `base`, both named, as a REF_DELTA: `base` may
    /// be in any segment of this conversion, written before or after, so
    /// segments are thin. They stay private until the finish step copies
    /// every entry into one pack, bases first (`convert/finish/`). The
    /// callers keep chains within `--depth` (`write/delta_policy.rs`).
    pub fn add_delta_compressed(
        &mut self,
        at: u32,
        base: u32,
        delta_size: u64,
        zlib: &[u8],
    ) -> Result<(), ConvertError> {
        let table = self.journal.table();
        let (sha256, base) = (table.written_name(at), table.written_name(base));
        let segment = self.open()?;
        segment
            .pack
            .add_ref_delta_compressed(sha256, base, delta_size, zlib)?;
        self.added(at)
    }

    /// Bookkeeping after an object entered the open segment.
    fn added(&mut self, at: u32) -> Result<(), ConvertError> {
        let segment = self
            .current
            .as_mut()
            .expect("an object was just added to it");
        debug_assert_eq!(
            self.order.get(self.appended),
            Some(&at),
            "appended in order"
        );
        segment.objects.push(at);
        let full = segment.pack.entries_written() == segment.count;
        self.appended += 1;
        self.journal.hooks().kill_point(phase::OBJECT);
        if full {
            self.finish_segment()?;
        }
        Ok(())
    }

    /// Tells the other sequences' writers to stop at their next
    /// checkpoint: this one failed.
    pub fn abandon(&self) {
        self.journal.abandon();
    }

    /// Between chunks: stops at Ctrl-C, or when the other sequence's
    /// writer failed. Whatever the open segment holds is discarded (its
    /// temporary pack is removed) and redone by the next run.
    pub fn checkpoint(&self) -> Result<(), ConvertError> {
        if self.journal.is_abandoned() {
            return Err(Interrupted.into());
        }
        Ok(self.journal.hooks().check_interrupt()?)
    }

    /// Waits for the last segment's finish, which ended the sequence
    /// (`commit_order.rs`), or the one in flight when the run stopped
    /// (its error, if any, is the one to report). A stopped sequence's open
    /// segment is discarded (its temporary pack removed).
    pub fn finish(mut self) -> Result<SegmentsOutcome, ConvertError> {
        debug_assert!(
            self.journal.is_abandoned()
                || (self.current.is_none() && self.appended == self.order.len()),
            "every planned object was added"
        );
        self.wait_for_finish()?;
        Ok(self.outcome)
    }

    fn open(&mut self) -> Result<&mut OpenSegment, ConvertError> {
        if self.current.is_none() {
            let (count, work) = self.plan_segment();
            let hash = self.journal.table().direction().dest();
            let pack = PackWriter::create(&self.dir, hash, count)?;
            self.current = Some(OpenSegment {
                pack,
                count,
                work,
                objects: Vec::with_capacity(count as usize),
            });
        }
        Ok(self.current.as_mut().expect("opened above"))
    }

    /// The objects of the next segment, and their work: the next objects
    /// of the sequence up to the target's work (at least [`MIN_SEGMENT`]
    /// of them, at most the ceiling), or the test hook's number.
    fn plan_segment(&self) -> (u32, u64) {
        let table = self.journal.table();
        let rest = &self.order[self.appended..];
        let count = match self.journal.hooks().segment_objects {
            Some(fixed) => (fixed as usize).min(rest.len()),
            None => {
                let mut work = 0;
                let fits = rest.iter().position(|&at| {
                    work += work_of(table.size(at));
                    work > self.target
                });
                fits.unwrap_or(rest.len())
                    .max(MIN_SEGMENT as usize)
                    .min(self.ceiling as usize)
                    .min(rest.len())
            }
        };
        let work = rest[..count]
            .iter()
            .map(|&at| work_of(table.size(at)))
            .sum();
        (count as u32, work)
    }

    fn finish_segment(&mut self) -> Result<(), ConvertError> {
        let segment = self.current.take().expect("a segment is open");
        // Aim the next segment at SEGMENT_TIME at the rate just seen,
        // growing at most GROWTH-fold: a rate measured on quickly copied
        // blobs says little about the trees that follow them, and smaller
        // segments let their finishing overlap the work.
        let secs = self.since.elapsed().as_secs_f64().max(1e-3);
        self.since = Instant::now();
        let rate = segment.work as f64 / secs;
        let by_rate = (rate * SEGMENT_TIME.as_secs_f64()) as u64;
        self.target = by_rate.min(segment.work.saturating_mul(GROWTH)).max(1);
        self.wait_for_finish()?;
        let last = self.appended == self.order.len();
        let (journal, sequence) = (self.journal, self.sequence);
        let finisher = std::thread::Builder::new().name(format!("segment-finish-{sequence}"));
        let spawned = finisher.spawn_scoped(self.scope, move || {
            let done = finish_pack(segment, journal).and_then(|renamed| {
                let pack_size = renamed.pack_size;
                journal.commit(sequence, renamed, last)?;
                Ok(pack_size)
            });
            if done.is_err() {
                journal.abandon();
            }
            done
        });
        // A thread that cannot start is the system's limit, reported as
        // an error of the segment's pack directory.
        self.finishing = Some(spawned.map_err(|e| ConvertError::io(&self.dir, e))?);
        Ok(())
    }

    /// Waits for the segment being finished, if any; a failed finish's
    /// error comes out here.
    fn wait_for_finish(&mut self) -> Result<(), ConvertError> {
        if let Some(handle) = self.finishing.take() {
            let pack_size = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            self.outcome.packs += 1;
            self.outcome.bytes += pack_size;
        }
        Ok(())
    }
}

/// Writes a full segment's trailer and indexes and renames it into place;
/// it is journaled next (`commit_order.rs`).
fn finish_pack(segment: OpenSegment, journal: &Journal<'_>) -> Result<Renamed, ConvertError> {
    let written = segment.pack.finish()?;
    journal.hooks().kill_point(phase::PACK_RENAMED);
    let stem = written.stem();
    Ok(Renamed {
        stem,
        pack_size: written.pack_size,
        objects: segment.objects,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_holds_at_most_an_eighth_of_its_sequence() {
        assert_eq!(segment_ceiling(0), SHARE_FLOOR);
        assert_eq!(segment_ceiling(20_000), SHARE_FLOOR);
        assert_eq!(segment_ceiling(71_000), 8_875);
        assert_eq!(segment_ceiling(1_600_000), 200_000);
        assert_eq!(segment_ceiling(100_000_000), MAX_SEGMENT);
    }
}
