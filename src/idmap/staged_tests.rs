//! Tests of the staged rows (staged.rs) through the map's journal, the
//! way a conversion stages and merges them, and every kind of query.

use super::row::MapRow;
use super::staged::*;
use crate::idmap::test_rows::row;
use crate::idmap::{HexPrefix, IdMap, Resolution, Resolver, RunId, SegmentRows};

fn sorted(rows: impl IntoIterator<Item = MapRow>) -> Vec<MapRow> {
    let mut rows: Vec<MapRow> = rows.into_iter().collect();
    rows.sort_by_key(|r| r.sha1);
    rows
}

/// Commits segments of `sizes` rows each (numbered on from `first`).
fn commit(map: &mut IdMap, run: RunId, first: u32, sizes: &[u32]) -> Vec<MapRow> {
    let mut all = Vec::new();
    let mut next = first;
    for &n in sizes {
        let rows = sorted((next..next + n).map(row));
        let stem = format!("pack-{next}");
        map.commit_segment(
            run,
            &stem,
            SegmentRows::plain(rows.iter().copied()),
            1,
            &|| {},
        )
        .unwrap();
        all.extend(rows);
        next += n;
    }
    sorted(all)
}

/// A new map in `dir`, open for writing, with a run begun.
fn writer(dir: &tempfile::TempDir) -> (std::path::PathBuf, IdMap, RunId) {
    let path = dir.path().join("map.sqlite");
    let mut map = IdMap::open_rw(&path).unwrap();
    let run = map.begin_run(0, 0).unwrap();
    (path, map, run)
}

fn staged_in(map: &IdMap) -> u64 {
    count(&map.conn).unwrap()
}

fn exported(map: &IdMap) -> Vec<MapRow> {
    let mut seen = Vec::new();
    map.for_each(|r| {
        seen.push(r);
        Ok(())
    })
    .unwrap();
    seen
}

#[test]
fn segments_stage_and_the_end_of_the_run_merges_them_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut map, run) = writer(&dir);
    // Pieces of more than one read, and segments that interleave.
    let rows = commit(&mut map, run, 0, &[2500, 1, 0, 1100]);
    assert_eq!(staged_in(&map), 3601);
    assert_eq!(map.count().unwrap(), 3601, "staged rows count");
    map.finish_load().unwrap();
    assert_eq!(staged_in(&map), 0);
    assert_eq!(map.count().unwrap(), 3601);
    assert_eq!(exported(&map), rows);
}

#[test]
fn the_next_writer_merges_what_an_interrupted_run_staged() {
    let dir = tempfile::tempdir().unwrap();
    let (path, mut map, run) = writer(&dir);
    let rows = commit(&mut map, run, 0, &[30, 40]);
    drop(map); // interrupted before finish_load
    let map = IdMap::open_rw(&path).unwrap();
    assert_eq!(staged_in(&map), 0);
    assert_eq!(exported(&map), rows);
}

#[test]
fn a_reader_sees_staged_rows_by_every_kind_of_query() {
    let dir = tempfile::tempdir().unwrap();
    let (path, mut map, run) = writer(&dir);
    let old = commit(&mut map, run, 0, &[50]);
    map.finish_load().unwrap();
    // A later run stages more: the filters built above no longer
    // cover every name.
    let new = commit(&mut map, run, 50, &[20, 30]);
    let all = sorted(old.iter().chain(&new).copied());

    let reader = IdMap::open_read_only(&path).unwrap();
    assert!(reader.shadowed);
    assert_eq!(reader.count().unwrap(), 100);
    assert_eq!(exported(&reader), all);
    assert_eq!(reader.lookup(&new[3].sha1).unwrap(), Some(new[3]));
    assert_eq!(reader.lookup(&new[4].sha256).unwrap(), Some(new[4]));
    let mut resolver = Resolver::new(&reader).unwrap();
    resolver.hold_snapshot().unwrap();
    for r in [old[0], new[0], new[29]] {
        for id in [r.sha1, r.sha256] {
            let prefix = HexPrefix::parse(&id.to_string().as_bytes()[..12]).unwrap();
            assert_eq!(resolver.resolve(&prefix).unwrap(), Resolution::Found(r));
        }
    }
    drop(resolver);

    // The writer merges while the reader is open: still one row each.
    map.finish_load().unwrap();
    let mut resolver = Resolver::new(&reader).unwrap();
    let prefix = HexPrefix::parse(new[7].sha1.to_string().as_bytes()).unwrap();
    assert_eq!(
        resolver.resolve(&prefix).unwrap(),
        Resolution::Found(new[7])
    );
    assert_eq!(exported(&reader), all);
    // A reader opened now has nothing to shadow.
    assert!(!IdMap::open_read_only(&path).unwrap().shadowed);
}

#[test]
fn a_corrupt_staged_row_is_named_with_its_segment() {
    let dir = tempfile::tempdir().unwrap();
    let (path, mut map, run) = writer(&dir);
    commit(&mut map, run, 0, &[3]);
    let mut blob = vec![0u8; ROW_BYTES];
    blob[52] = 9;
    map.conn
        .execute(
            "UPDATE staged_rows SET rows = ?1 WHERE pack = 'pack-0'",
            [blob],
        )
        .unwrap();
    let err = map.finish_load().unwrap_err().to_string();
    assert!(err.contains("segment pack-0: type code 9"), "{err}");
    let err = IdMap::open_read_only(&path).err().unwrap().to_string();
    assert!(err.contains("segment pack-0"), "{err}");
}
