//! Tests of the waiting segments (waiting.rs) through the map's journal,
//! the way a conversion journals them and moves their rows into the map.

use super::row::MapRow;
use crate::idmap::test_rows::row;
use crate::idmap::{IdMap, RowsGo, SegmentRows};

fn sorted(range: std::ops::Range<u32>) -> Vec<MapRow> {
    let mut rows: Vec<MapRow> = range.map(row).collect();
    rows.sort_by_key(|r| r.sha1);
    rows
}

fn waiting_rows_of(map: &IdMap, pack: &str) -> Vec<MapRow> {
    let mut rows = Vec::new();
    map.for_each_waiting_row(pack, |r| rows.push(r)).unwrap();
    rows
}

#[test]
fn waiting_rows_stay_out_of_the_map_until_promoted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map.sqlite");
    let mut map = IdMap::open_rw(&path).unwrap();
    let run = map.begin_run(10, 10).unwrap();
    let (blobs, trees, more) = (sorted(0..4), sorted(4..2000), sorted(2000..2003));
    map.commit_segment(
        run,
        "pack-b",
        SegmentRows::plain(blobs.iter().copied()),
        1,
        &|| {},
    )
    .unwrap();
    for (pack, rows) in [("pack-t", &trees), ("pack-u", &more)] {
        let segment = SegmentRows::plain(rows.iter().copied());
        map.journal_segment(run, pack, segment, 1, RowsGo::Waiting, &|| {})
            .unwrap();
    }
    assert_eq!(map.count().unwrap(), 4);
    assert_eq!(map.lookup(&trees[0].sha1).unwrap(), None);
    assert_eq!(map.waiting_segments().unwrap(), ["pack-t", "pack-u"]);
    assert_eq!(waiting_rows_of(&map, "pack-t"), trees);
    // Journaled: they are live packs, and pending ones.
    assert_eq!(
        map.pending_segments().unwrap(),
        ["pack-b", "pack-t", "pack-u"]
    );
    // A reader sees the map alone.
    assert_eq!(IdMap::open_read_only(&path).unwrap().count().unwrap(), 4);
    // A writer opened again (a resumed run) keeps them waiting.
    drop(map);
    let mut map = IdMap::open_rw(&path).unwrap();
    assert_eq!(map.count().unwrap(), 4);
    assert_eq!(map.waiting_segments().unwrap(), ["pack-t", "pack-u"]);

    assert_eq!(map.promote_waiting(&|| {}).unwrap(), 1999);
    assert!(map.waiting_segments().unwrap().is_empty());
    assert_eq!(map.count().unwrap(), 2003);
    let reader = IdMap::open_read_only(&path).unwrap();
    assert_eq!(reader.lookup(&trees[7].sha1).unwrap(), Some(trees[7]));
    assert_eq!(map.promote_waiting(&|| {}).unwrap(), 0);
    map.finish_load().unwrap();
    assert_eq!(map.count().unwrap(), 2003);
    assert_eq!(map.lookup(&more[2].sha1).unwrap(), Some(more[2]));
}

#[test]
fn discarded_waiting_segments_leave_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let mut map = IdMap::open_rw(&dir.path().join("map.sqlite")).unwrap();
    let run = map.begin_run(10, 10).unwrap();
    for (pack, rows) in [("pack-t", sorted(0..3)), ("pack-u", sorted(3..5))] {
        let segment = SegmentRows::plain(rows.into_iter());
        map.journal_segment(run, pack, segment, 1, RowsGo::Waiting, &|| {})
            .unwrap();
    }
    map.discard_waiting(&["pack-u".to_string()]).unwrap();
    assert_eq!(map.waiting_segments().unwrap(), ["pack-t"]);
    assert_eq!(map.live_packs().unwrap(), ["pack-t"]);
    assert_eq!(map.promote_waiting(&|| {}).unwrap(), 3);
    assert_eq!(map.count().unwrap(), 3);
}
