//! Tests of the mergetag records (mergetags.rs) through the journal of
//! the segments that record them.

use super::store::IdMap;
use crate::idmap::SegmentRows;
use crate::idmap::test_rows::row;

#[test]
fn recorded_with_their_segment_and_read_back_by_any_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map.sqlite");
    let mut map = IdMap::open_rw(&path).unwrap();
    assert!(map.verbatim_mergetags().unwrap().is_empty());
    let run = map.begin_run(4, 4).unwrap();
    let rows: Vec<_> = (0..4).map(row).collect();
    let mut kept = vec![rows[3].sha1, rows[1].sha1];
    let segment = SegmentRows {
        rows: rows.iter().copied(),
        verbatim_mergetags: &kept,
    };
    map.commit_segment(run, "pack-a", segment, 1, &|| {})
        .unwrap();
    kept.sort();
    assert_eq!(map.verbatim_mergetags().unwrap(), kept);
    // A reader sees them while the rows are still staged.
    let reader = IdMap::open_read_only(&path).unwrap();
    assert_eq!(reader.verbatim_mergetags().unwrap(), kept);
}
