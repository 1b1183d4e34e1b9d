//! The commit side of the journal, shared by the run's segment sequences:
//! each finished segment's rows go into the map database in one
//! transaction, in an order that keeps the map closed under references.
//!
//! A run writes two sequences of segments at once (`sequence.rs`): the
//! blobs (sequence 0) and the map pass's trees, commits and tags (sequence
//! 1), whose objects name blobs of any segment of sequence 0. So a segment
//! of sequence n commits only once every sequence before n has ended; the
//! ones finished earlier wait here, renamed into place but without rows
//! (an interruption then loses them: the next run deletes packs the journal
//! does not name, `resume/mod.rs`). Within a sequence, segments commit in the
//! order written, as each writer has one finish in flight at a time.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::convert::error::ConvertError;
use crate::convert::phase;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::HashKind;
use crate::idmap::{IdMap, MapRow, RunId, SegmentRows};
use crate::pipeline::StopPoints;

/// A segment renamed into place, its rows not committed yet.
pub struct Renamed {
    /// The pack's file stem (`pack-<checksum>`): its journal name.
    pub stem: String,
    pub pack_size: u64,
    /// Table positions of its objects.
    pub objects: Vec<u32>,
}

/// The map database and the segments waiting for their turn.
pub struct Journal<'a> {
    /// Objects each sequence writes.
    totals: Vec<u64>,
    state: Mutex<State>,
    table: &'a ObjectTable,
    run: RunId,
    hooks: &'a StopPoints,
    /// Set when a sequence's writer failed: the others stop at their next
    /// checkpoint instead of converting on for nothing.
    abandoned: AtomicBool,
}

struct State {
    map: IdMap,
    /// By sequence: whether its last segment committed (or it has none).
    /// A segment commits once every sequence before its own ended.
    ended: Vec<bool>,
    /// Segments of later sequences, in the order they were finished.
    waiting: Vec<Waiting>,
}

struct Waiting {
    sequence: usize,
    segment: Renamed,
    /// Its sequence's last segment.
    last: bool,
}

impl<'a> Journal<'a> {
    /// Takes the map database until [`Journal::into_map`]. `totals`: the
    /// objects each sequence will write, in commit order.
    pub fn new(
        map: IdMap,
        table: &'a ObjectTable,
        run: RunId,
        hooks: &'a StopPoints,
        totals: &[u64],
    ) -> Self {
        Journal {
            totals: totals.to_vec(),
            state: Mutex::new(State {
                map,
                ended: totals.iter().map(|&n| n == 0).collect(),
                waiting: Vec::new(),
            }),
            table,
            run,
            hooks,
            abandoned: AtomicBool::new(false),
        }
    }

    /// The map database back, once every sequence ended.
    pub fn into_map(self) -> IdMap {
        let state = self
            .state
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        debug_assert!(state.waiting.is_empty(), "every sequence ended");
        state.map
    }

    pub fn total(&self, sequence: usize) -> u64 {
        self.totals[sequence]
    }

    pub fn table(&self) -> &'a ObjectTable {
        self.table
    }

    pub fn hooks(&self) -> &'a StopPoints {
        self.hooks
    }

    /// Commits `segment` of `sequence`, or keeps it until the sequences
    /// before it end. `last`: the sequence's last segment, whose commit
    /// ends it; the segments of later sequences finished meanwhile commit
    /// then, in order.
    pub fn commit_or_wait(
        &self,
        sequence: usize,
        segment: Renamed,
        last: bool,
    ) -> Result<(), ConvertError> {
        let mut state = self.lock();
        state.waiting.push(Waiting {
            sequence,
            segment,
            last,
        });
        // Everything that may commit now, in the order finished.
        while let Some(k) = state
            .waiting
            .iter()
            .position(|w| may_commit(&state.ended, w.sequence))
        {
            let due = state.waiting.remove(k);
            self.commit(&mut state, due.segment)?;
            if due.last {
                state.ended[due.sequence] = true;
            }
        }
        Ok(())
    }

    /// A writer failed: the others should stop too.
    pub fn abandon(&self) {
        self.abandoned.store(true, Ordering::Relaxed);
    }

    pub fn is_abandoned(&self) -> bool {
        self.abandoned.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while committing is re-raised by the writer that joins
        // the panicking finisher; nothing commits after it.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The checkpoint: one transaction with the segment's journal entry,
    /// its objects' rows and which of its commits keep a mergetag verbatim.
    fn commit(&self, state: &mut State, mut segment: Renamed) -> Result<(), ConvertError> {
        let (table, hooks) = (self.table, self.hooks);
        // Rows go in SHA-1 order, the map's key: the table's own order when
        // SOURCE names objects in SHA-1, else their DEST names'.
        match table.direction().source() {
            HashKind::Sha1 => segment.objects.sort_unstable(),
            HashKind::Sha256 => segment
                .objects
                .sort_unstable_by_key(|&at| table.written_name(at)),
        }
        let rows = segment.objects.iter().map(|&at| {
            let (sha1, sha256) = table.map_columns(at);
            let kind = table.kind(at);
            MapRow {
                sha1,
                sha256,
                kind: kind.expect("objects are scanned before they are written"),
            }
        });
        // Named by SHA-1, whichever side that is.
        let verbatim_mergetags: Vec<_> = segment
            .objects
            .iter()
            .filter(|&&at| table.keeps_mergetags(at))
            .map(|&at| table.map_columns(at).0)
            .collect();
        let rows = SegmentRows {
            rows,
            verbatim_mergetags: &verbatim_mergetags,
        };
        // (A failure reaches the finisher that called, which abandons.)
        state
            .map
            .commit_segment(self.run, &segment.stem, rows, segment.pack_size, &|| {
                hooks.kill_point(phase::IN_COMMIT)
            })?;
        hooks.kill_point(phase::COMMITTED);
        Ok(())
    }
}

/// Whether a segment of `sequence` may commit: every sequence before it
/// ended.
fn may_commit(ended: &[bool], sequence: usize) -> bool {
    ended[..sequence].iter().all(|&e| e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::source_objects::table::{Location, test_id};
    use crate::object::ObjectKind;

    fn table(n: u32) -> ObjectTable {
        let mut table = ObjectTable::new(
            (0..n)
                .map(|k| (test_id(k), Location::Loose { dir: 0 }))
                .collect(),
        );
        for at in table.indices().collect::<Vec<_>>() {
            table.set_kind(at, ObjectKind::Blob);
            table.set_dest(at, crate::hash::ObjectId::Sha256([at as u8; 32]));
        }
        table
    }

    /// A map database of a run about to write `n` objects, with the table
    /// of those objects, named; the directory must outlive the map.
    fn fixture(dir: &tempfile::TempDir, n: u32) -> (IdMap, RunId, ObjectTable) {
        let mut map = IdMap::open_rw(&dir.path().join("map.sqlite")).unwrap();
        let run = map.begin_run(n.into(), n.into()).unwrap();
        (map, run, table(n))
    }

    fn segment(stem: &str, objects: Vec<u32>) -> Renamed {
        Renamed {
            stem: stem.to_string(),
            pack_size: 1,
            objects,
        }
    }

    #[test]
    fn a_later_sequence_commits_after_the_earlier_one_ends() {
        let dir = tempfile::tempdir().unwrap();
        let ((map, run, table), hooks) = (fixture(&dir, 6), StopPoints::new(None));
        let journal = Journal::new(map, &table, run, &hooks, &[3, 3]);
        let commit = |sequence, stem, objects, last| {
            journal
                .commit_or_wait(sequence, segment(stem, objects), last)
                .unwrap()
        };
        commit(1, "pack-m1", vec![4, 3], false);
        commit(0, "pack-b1", vec![0], false);
        commit(1, "pack-m2", vec![], false);
        let committed = |journal: &Journal<'_>| journal.lock().map.segment_packs().unwrap();
        assert_eq!(committed(&journal), ["pack-b1"]);
        // The map pass may end first: its last segment waits too.
        commit(1, "pack-m3", vec![5], true);
        assert_eq!(committed(&journal), ["pack-b1"]);
        commit(0, "pack-b2", vec![2, 1], true);
        assert_eq!(
            committed(&journal),
            ["pack-b1", "pack-b2", "pack-m1", "pack-m2", "pack-m3"]
        );
        let map = journal.into_map();
        assert_eq!(map.count().unwrap(), 6);
    }

    #[test]
    fn an_empty_sequence_holds_nothing_back() {
        let dir = tempfile::tempdir().unwrap();
        let ((map, run, table), hooks) = (fixture(&dir, 2), StopPoints::new(None));
        let journal = Journal::new(map, &table, run, &hooks, &[0, 2]);
        journal
            .commit_or_wait(1, segment("pack-m1", vec![1]), false)
            .unwrap();
        assert_eq!(journal.lock().map.segment_packs().unwrap(), ["pack-m1"]);
    }
}
