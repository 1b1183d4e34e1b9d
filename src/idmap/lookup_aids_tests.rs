//! Tests of the lookup aids (lookup_aids.rs) through the map that
//! keeps them and the resolver that reads them.

use rusqlite::Connection;

use super::lookup_aids::*;
use super::{HexPrefix, IdMap, MapRow, Resolution, Resolver};
use crate::hash::{HashKind, ObjectId};
use crate::idmap::test_rows::row;
use crate::object::ObjectKind;

fn resolve_batch(map: &IdMap, ids: &[String]) -> Vec<Resolution> {
    let mut r = Resolver::new(map).unwrap();
    r.hold_snapshot().unwrap();
    ids.iter()
        .map(|id| {
            r.resolve(&HexPrefix::parse(id.as_bytes()).unwrap())
                .unwrap()
        })
        .collect()
}

#[test]
fn every_name_passes_its_filter() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map.sqlite");
    let rows: Vec<MapRow> = (0..3000).map(row).collect();
    let mut map = IdMap::open_rw(&path).unwrap();
    map.load(rows.clone()).unwrap();
    map.finish_load().unwrap();
    let filters = [Side::Sha1, Side::Sha256]
        .map(|side| PrefixFilter::open(&map.conn, side).unwrap().unwrap());
    assert_eq!(filters[0].bits, filter_bits(3000));
    let mut clear = 0;
    for r in &rows {
        for (f, name) in filters.iter().zip([r.sha1, r.sha256]) {
            assert!(f.may_start_with(name.as_bytes(), 8).unwrap());
            // A name with a flipped first bit is mostly filtered out.
            let mut other = name.as_bytes().to_vec();
            other[0] ^= 0x80;
            clear += !f.may_start_with(&other, 8).unwrap() as usize;
        }
    }
    assert!(clear > rows.len(), "{clear} of {} rejected", 2 * rows.len());
}

/// `sha1` as a full SHA-1 name is also a prefix of another object's
/// SHA-256 name: ambiguous, whatever the filters say.
fn cross_pair() -> (MapRow, MapRow) {
    let a = row(1);
    let mut sha256 = [0x11u8; 32];
    sha256[..20].copy_from_slice(a.sha1.as_bytes());
    let b = MapRow {
        sha1: row(2).sha1,
        sha256: ObjectId::from_raw(HashKind::Sha256, &sha256).unwrap(),
        kind: ObjectKind::Tree,
    };
    (a, b)
}

#[test]
fn rows_added_after_the_filters_are_never_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map.sqlite");
    let (a, b) = cross_pair();
    let mut map = IdMap::open_rw(&path).unwrap();
    map.load((10..500).map(row).chain([a])).unwrap();
    map.finish_load().unwrap();
    let full = [a.sha1.to_hex()];
    assert_eq!(resolve_batch(&map, &full), [Resolution::Found(a)]);
    // As an incremental run commits rows: the trigger drops the filters.
    map.load([b]).unwrap();
    assert!(
        PrefixFilter::open(&map.conn, Side::Sha256)
            .unwrap()
            .is_none()
    );
    assert_eq!(resolve_batch(&map, &full), [Resolution::Ambiguous]);
    map.finish_load().unwrap();
    assert!(
        PrefixFilter::open(&map.conn, Side::Sha256)
            .unwrap()
            .is_some()
    );
    assert_eq!(resolve_batch(&map, &full), [Resolution::Ambiguous]);
    assert_eq!(
        resolve_batch(&map, &[b.sha256.to_hex(), a.sha1.to_hex()[..8].into()]),
        [Resolution::Found(b), Resolution::Ambiguous]
    );
}

#[test]
fn a_map_indexed_by_an_older_version_is_upgraded_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map.sqlite");
    let rows: Vec<MapRow> = (0..200).map(row).collect();
    {
        // The schema and index as versions before migration 4 left them.
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(include_str!("../../migrations/0001_object_map.sql"))
            .unwrap();
        conn.execute_batch(include_str!("../../migrations/0002_run_journal.sql"))
            .unwrap();
        conn.pragma_update(None, "user_version", 2).unwrap();
        for r in &rows {
            conn.execute(
                "INSERT INTO objects (sha1, sha256, type) VALUES (?1, ?2, 3)",
                [r.sha1.as_bytes(), r.sha256.as_bytes()],
            )
            .unwrap();
        }
        conn.execute_batch("CREATE UNIQUE INDEX objects_by_dest_name ON objects (sha256)")
            .unwrap();
    }
    let ids: Vec<String> = rows.iter().map(|r| r.sha256.to_hex()).collect();
    let expected: Vec<Resolution> = rows.iter().map(|r| Resolution::Found(*r)).collect();
    // Read-only, the old map still answers (without filters).
    let old = IdMap::open_read_only(&path).unwrap();
    assert_eq!(resolve_batch(&old, &ids), expected);
    // It has no `staged_rows` table (migration 5) either.
    assert!(!old.shadowed);
    assert_eq!(old.count().unwrap(), 200);
    drop(old);
    drop(IdMap::open_rw(&path).unwrap());
    let map = IdMap::open_read_only(&path).unwrap();
    let columns: i64 = map
        .conn
        .query_row(
            "SELECT count(*) FROM pragma_index_info('objects_by_dest_name')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(columns, 2, "covering (sha256, type)");
    assert!(PrefixFilter::open(&map.conn, Side::Sha1).unwrap().is_some());
    assert_eq!(resolve_batch(&map, &ids), expected);
}

#[test]
fn a_new_map_gets_its_aids_from_finish_load_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map.sqlite");
    let mut map = IdMap::open_rw(&path).unwrap();
    // No index and no trigger during the bulk load.
    let aids: i64 = map
        .conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type IN ('index', 'trigger') \
             AND tbl_name = 'objects'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(aids, 0);
    map.load((0..10).map(row)).unwrap();
    map.finish_load().unwrap();
    assert!(PrefixFilter::open(&map.conn, Side::Sha1).unwrap().is_some());
}
