//! Map databases written directly, with ids chosen to sit on prefix
//! boundaries or in numbers git repositories would take long to make.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::library::{
    HashKind, IdMap, MapRow, ObjectId, ObjectKind, sha1_object_id, sha256_object_id,
};
use super::scratch::scratch_dir;

/// The id of kind `kind` spelled `hex`.
pub fn id(kind: HashKind, hex: &str) -> ObjectId {
    ObjectId::parse_hex(kind, hex).unwrap()
}

/// `prefix` filled up to `len` characters with `fill`.
pub fn pad(prefix: &str, len: usize, fill: char) -> String {
    let mut s = prefix.to_owned();
    while s.len() < len {
        s.push(fill);
    }
    s
}

/// Writes `rows` (sorted here by SHA-1) as a new map database at `path`.
fn write_map(path: &Path, mut rows: Vec<MapRow>) {
    rows.sort_by_key(|r| r.sha1);
    let mut map = IdMap::open_rw(path).unwrap();
    map.load(rows).unwrap();
    map.finish_load().unwrap();
}

/// A map from `(sha1 hex, sha256 hex, kind)` rows.
pub fn synthetic_map(label: &str, rows: &[(&str, &str, ObjectKind)]) -> PathBuf {
    let path = scratch_dir(label).join("map.sqlite");
    let rows = rows
        .iter()
        .map(|(a, b, k)| MapRow {
            sha1: id(HashKind::Sha1, a),
            sha256: id(HashKind::Sha256, b),
            kind: *k,
        })
        .collect();
    write_map(&path, rows);
    path
}

/// Rows whose names share prefixes at half-byte boundaries:
/// sha1 abcde0…, abcdf0…, ffff…; sha256 1111…, 2222…, abcd9…;
/// plus a commit/blob pair sharing the 7-digit SHA-1 prefix 1234567.
pub fn boundary_map() -> &'static Path {
    static MAP: OnceLock<PathBuf> = OnceLock::new();
    MAP.get_or_init(|| {
        let a = pad("abcde", 40, '0');
        let b = pad("abcdf", 40, '0');
        let f = pad("", 40, 'f');
        let c1 = pad("12345670", 40, '0');
        let c2 = pad("12345671", 40, '0');
        let c3 = pad("7654321", 40, '0');
        let c4 = pad("7654321", 40, '1');
        let s = |p: &str| pad(p, 64, '0');
        synthetic_map(
            "boundary",
            &[
                (&a, &s("1111"), ObjectKind::Commit),
                (&b, &s("2222"), ObjectKind::Tree),
                (&f, &s("abcd9"), ObjectKind::Blob),
                (&c1, &s("3333a"), ObjectKind::Commit),
                (&c2, &s("3333b"), ObjectKind::Blob),
                (&c3, &s("4444"), ObjectKind::Commit),
                (&c4, &s("5555"), ObjectKind::Tag),
            ],
        )
    })
}

/// A map big enough that its export does not fit in a pipe buffer.
pub fn big_map() -> &'static Path {
    static MAP: OnceLock<PathBuf> = OnceLock::new();
    MAP.get_or_init(|| {
        let path = scratch_dir("big-map").join("map.sqlite");
        let rows = (0u32..100_000)
            .map(|n| {
                let body = n.to_le_bytes();
                MapRow {
                    sha1: sha1_object_id(ObjectKind::Blob, &body).unwrap(),
                    sha256: sha256_object_id(ObjectKind::Blob, &body),
                    kind: ObjectKind::Blob,
                }
            })
            .collect();
        write_map(&path, rows);
        path
    })
}
