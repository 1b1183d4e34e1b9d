//! The export's checkpoints: its objects go into MIRROR as a sequence of
//! packs ("segments") in `rehash-export/segments/`, where git never looks,
//! each renamed into place and fsynced once it holds its planned number of
//! objects. A segment is sized to about three seconds of work, which
//! bounds what a kill loses; the next run finds the segments, does not
//! write their objects again, and folds them with its own into one pack
//! (`finish.rs`). Segments are thin (a blob delta names its base, which
//! an earlier segment may hold); nothing but the fold reads them.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::error::ExportError;
use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;
use crate::pack::PackWriter;
use crate::pipeline::StopPoints;

/// Work per segment: the most a kill can lose.
const SEGMENT_TIME: Duration = Duration::from_secs(3);
/// Objects in the first segment, before a rate is known, and the bounds
/// on any segment whatever the rate.
const FIRST_SEGMENT: u32 = 4096;
const MIN_SEGMENT: u32 = 256;
const MAX_SEGMENT: u32 = 1 << 20;

/// One object for a segment, with its SHA-1 name.
pub enum SegmentEntry<'a> {
    /// Whole: the zlib stream of the `size`-byte object.
    Whole {
        id: ObjectId,
        kind: ObjectKind,
        size: u64,
        zlib: &'a [u8],
    },
    /// A delta of `size` bytes against the object `base`, compressed.
    Delta {
        id: ObjectId,
        base: ObjectId,
        size: u64,
        zlib: &'a [u8],
    },
}

struct Open {
    pack: PackWriter,
    /// The objects its header announces.
    planned: u32,
    started: Instant,
}

/// Appends objects to the current segment, finishing each when full.
pub struct Segments<'a> {
    dir: PathBuf,
    stops: &'a StopPoints,
    /// Objects still to append, this run: the last segment holds the rest.
    remaining: u64,
    target: u32,
    open: Option<Open>,
    pub finished: u32,
}

impl<'a> Segments<'a> {
    /// A sequence of segments in `dir` for `total` objects.
    pub fn new(dir: PathBuf, stops: &'a StopPoints, total: u64) -> Self {
        Segments {
            dir,
            stops,
            remaining: total,
            target: stops.segment_objects.unwrap_or(FIRST_SEGMENT),
            open: None,
            finished: 0,
        }
    }

    pub fn add(&mut self, entry: SegmentEntry<'_>) -> Result<(), ExportError> {
        let open = match &mut self.open {
            Some(open) => open,
            None => {
                let planned = u64::from(self.target).min(self.remaining) as u32;
                self.open.insert(Open {
                    pack: PackWriter::create(&self.dir, HashKind::Sha1, planned)?,
                    planned,
                    started: Instant::now(),
                })
            }
        };
        match entry {
            SegmentEntry::Whole {
                id,
                kind,
                size,
                zlib,
            } => open.pack.add_compressed(id, kind, size, zlib)?,
            SegmentEntry::Delta {
                id,
                base,
                size,
                zlib,
            } => open.pack.add_ref_delta_compressed(id, base, size, zlib)?,
        };
        self.remaining -= 1;
        self.stops.kill_point(super::phase::OBJECT);
        if open.pack.entries_written() == open.planned {
            self.finish_segment()?;
        }
        Ok(())
    }

    fn finish_segment(&mut self) -> Result<(), ExportError> {
        let Some(open) = self.open.take() else {
            return Ok(());
        };
        let count = open.pack.entries_written();
        let took = open.started.elapsed();
        open.pack.finish()?;
        self.finished += 1;
        self.stops.kill_point(super::phase::SEGMENT_RENAMED);
        if self.stops.segment_objects.is_none() {
            let rate = f64::from(count) / took.as_secs_f64().max(1e-3);
            let next = (rate * SEGMENT_TIME.as_secs_f64()) as u64;
            self.target = next
                .clamp(u64::from(MIN_SEGMENT), u64::from(MAX_SEGMENT))
                .min(u64::from(self.target) * 4) as u32;
        }
        Ok(())
    }
}
