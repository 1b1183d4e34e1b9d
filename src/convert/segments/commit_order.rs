//! The commit side of the journal, shared by the run's segment sequences:
//! each finished segment is journaled in one transaction with its
//! objects' rows, in an order that keeps the map closed under references.
//!
//! A run writes two sequences of segments at once (`sequence.rs`): the
//! blobs (sequence 0) and the map pass's trees, commits and tags (sequence
//! 1), whose objects name blobs of any segment of sequence 0. So a segment
//! of sequence 1 finished before the last blob segment committed is
//! journaled as waiting: durable, its rows kept apart from the map
//! (`idmap/waiting.rs`). The transaction that follows the last blob
//! segment's moves every waiting segment's rows into the map, those of
//! interrupted runs' too (adopted by `resume/adopted.rs`); later segments
//! of sequence 1 go into the map directly. Within a sequence, segments are
//! journaled in the order written, as each writer has one finish in flight
//! at a time, and a segment's objects name only earlier objects of their
//! own sequence. An interruption loses only the segments not journaled
//! yet: the next run deletes packs the journal does not name
//! (`resume/mod.rs`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::convert::error::ConvertError;
use crate::convert::phase;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::HashKind;
use crate::idmap::{IdMap, MapRow, RowsGo, RunId, SegmentRows};
use crate::pipeline::StopPoints;

/// The sequence every other one's objects may name.
pub const BLOBS: usize = 0;

/// A segment renamed into place, not journaled yet.
pub struct Renamed {
    /// The pack's file stem (`pack-<checksum>`): its journal name.
    pub stem: String,
    pub pack_size: u64,
    /// Table positions of its objects.
    pub objects: Vec<u32>,
}

/// The map database and whether the blobs are all in it.
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
    /// Whether the last blob segment committed (or the run writes no
    /// blobs): from then on, segments go into the map directly.
    blobs_ended: bool,
}

impl<'a> Journal<'a> {
    /// Takes the map database until [`Journal::into_map`]. `totals`: the
    /// objects each sequence will write, blobs first. A run with no blob
    /// to write moves the rows interrupted runs left waiting into the map
    /// now.
    pub fn new(
        map: IdMap,
        table: &'a ObjectTable,
        run: RunId,
        hooks: &'a StopPoints,
        totals: &[u64],
    ) -> Result<Self, ConvertError> {
        let journal = Journal {
            totals: totals.to_vec(),
            state: Mutex::new(State {
                map,
                blobs_ended: false,
            }),
            table,
            run,
            hooks,
            abandoned: AtomicBool::new(false),
        };
        if totals[BLOBS] == 0 {
            journal.blobs_ended(&mut journal.lock())?;
        }
        Ok(journal)
    }

    /// The map database back, once every sequence ended.
    pub fn into_map(self) -> IdMap {
        self.state
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .map
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

    /// Journals `segment` of `sequence`: into the map, or waiting while
    /// blobs are still being written. `last`: the sequence's last segment;
    /// the blobs' moves the waiting rows into the map.
    pub fn commit(
        &self,
        sequence: usize,
        segment: Renamed,
        last: bool,
    ) -> Result<(), ConvertError> {
        let mut state = self.lock();
        let into_map = sequence == BLOBS || state.blobs_ended;
        self.journal_segment(&mut state, segment, into_map)?;
        if sequence == BLOBS && last {
            self.blobs_ended(&mut state)?;
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

    /// Every blob has its row: the waiting rows, this run's and those of
    /// interrupted runs, join the map in one transaction.
    fn blobs_ended(&self, state: &mut State) -> Result<(), ConvertError> {
        state.blobs_ended = true;
        let hooks = self.hooks;
        state
            .map
            .promote_waiting(&|| hooks.kill_point(phase::IN_COMMIT))?;
        hooks.kill_point(phase::COMMITTED);
        Ok(())
    }

    /// The checkpoint: one transaction with the segment's journal entry,
    /// its objects' rows (into the map, or waiting) and which of its
    /// commits keep a mergetag verbatim.
    fn journal_segment(
        &self,
        state: &mut State,
        mut segment: Renamed,
        into_map: bool,
    ) -> Result<(), ConvertError> {
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
        let (stem, size) = (&segment.stem, segment.pack_size);
        let in_commit = || hooks.kill_point(phase::IN_COMMIT);
        // (A failure reaches the finisher that called, which abandons.)
        let rows_go = match into_map {
            true => RowsGo::ToMap,
            false => RowsGo::Waiting,
        };
        state
            .map
            .journal_segment(self.run, stem, rows, size, rows_go, &in_commit)?;
        hooks.kill_point(phase::COMMITTED);
        Ok(())
    }
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
    fn segments_of_named_objects_wait_until_the_last_blob_segment() {
        let dir = tempfile::tempdir().unwrap();
        let ((map, run, table), hooks) = (fixture(&dir, 6), StopPoints::new(None));
        let journal = Journal::new(map, &table, run, &hooks, &[3, 3]).unwrap();
        let commit = |sequence, stem, objects, last| {
            journal
                .commit(sequence, segment(stem, objects), last)
                .unwrap()
        };
        commit(1, "pack-m1", vec![4, 3], false);
        commit(0, "pack-b1", vec![0], false);
        let map = |journal: &Journal<'_>| {
            let state = journal.lock();
            (
                state.map.count().unwrap(),
                state.map.waiting_segments().unwrap(),
            )
        };
        assert_eq!(map(&journal), (1, vec!["pack-m1".to_string()]));
        // The map pass may end first: its last segment waits too.
        commit(1, "pack-m2", vec![5], true);
        assert_eq!(map(&journal).1, ["pack-m1", "pack-m2"]);
        commit(0, "pack-b2", vec![2, 1], true);
        assert_eq!(map(&journal), (6, vec![]));
        let map = journal.into_map();
        assert_eq!(
            map.segment_packs().unwrap(),
            ["pack-m1", "pack-b1", "pack-m2", "pack-b2"]
        );
    }

    #[test]
    fn after_the_blobs_segments_go_into_the_map_directly() {
        let dir = tempfile::tempdir().unwrap();
        let ((map, run, table), hooks) = (fixture(&dir, 4), StopPoints::new(None));
        let journal = Journal::new(map, &table, run, &hooks, &[1, 3]).unwrap();
        journal
            .commit(0, segment("pack-b1", vec![0]), true)
            .unwrap();
        journal
            .commit(1, segment("pack-m1", vec![1, 2]), false)
            .unwrap();
        let state = journal.lock();
        assert_eq!(state.map.count().unwrap(), 3);
        assert!(state.map.waiting_segments().unwrap().is_empty());
    }

    #[test]
    fn a_run_without_blobs_takes_in_what_an_interrupted_run_left_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let (mut map, run, table) = fixture(&dir, 3);
        let rows = (0..2).map(|at| {
            let (sha1, sha256) = table.map_columns(at);
            MapRow {
                sha1,
                sha256,
                kind: ObjectKind::Tree,
            }
        });
        map.journal_segment(
            run,
            "pack-m0",
            SegmentRows::plain(rows),
            1,
            RowsGo::Waiting,
            &|| {},
        )
        .unwrap();
        let hooks = StopPoints::new(None);
        let journal = Journal::new(map, &table, run, &hooks, &[0, 1]).unwrap();
        assert_eq!(journal.lock().map.count().unwrap(), 2);
        journal
            .commit(1, segment("pack-m1", vec![2]), true)
            .unwrap();
        let map = journal.into_map();
        assert_eq!(map.count().unwrap(), 3);
        assert_eq!(map.segment_packs().unwrap(), ["pack-m0", "pack-m1"]);
    }
}
