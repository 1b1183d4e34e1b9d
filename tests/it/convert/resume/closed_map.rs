//! The map stays closed under references at every instant: killed while
//! blob segments and the trees, commits and tags that name their blobs are
//! written side by side, a run leaves only rows whose objects read back
//! from the segments the journal lists (SHA-256 of the body equal to the
//! row's name) and name nothing that has no row. The tree-and-commit
//! segments finished before the last blob segment are journaled as
//! waiting, their rows kept apart; the next run adopts them.

use std::collections::BTreeMap;
use std::path::Path;

use super::{
    assert_identical_artifacts, assert_sound, convert_cmd, convert_cmd_with_summary,
    convert_killed_at, make_source, reference_with_artifacts,
};
use crate::support::library::{DeltaCache, HashKind, ObjectId, ObjectKind, Pack, sha256_object_id};
use crate::support::rehash::{rehash_export_text, run_ok};
use crate::support::scratch::scratch_dir;

#[test]
fn a_kill_beside_the_blobs_leaves_no_row_naming_an_object_without_one() {
    let source = make_source("closed-map");
    let (expected, artifacts) = reference_with_artifacts(&source, "closed-map-ref");
    let mut waited = 0;
    // Every segment commit of both sequences, and kills inside segments
    // and between a segment's rename and its commit.
    let mut specs: Vec<String> = (1..=12).map(|n| format!("committed:{n}")).collect();
    specs.extend(["object:9", "object:23", "pack-renamed:3", "in-commit:5"].map(String::from));
    for spec in &specs {
        let dest = scratch_dir("closed-map-run").join("dest.git");
        convert_killed_at(&source, &dest, spec);
        let checked = assert_closed_and_read_back(&dest, spec);
        waited += checked.waiting;
        let out = run_ok(&mut convert_cmd_with_summary(&source, &dest));
        let stderr = String::from_utf8_lossy(&out.stderr);
        if checked.waiting > 0 {
            assert!(
                stderr.contains("written by an interrupted run and folded now"),
                "{spec}: the resumed run does not say it adopted the waiting segments: {stderr}"
            );
        }
        assert_sound(&dest, &expected, &format!("killed at {spec}"));
        assert_identical_artifacts(&dest, &artifacts, &format!("killed at {spec}"));
    }
    assert!(
        waited > 0,
        "no kill left a waiting segment: the test did not meet the case it is for"
    );
}

/// What one killed DEST held.
struct Checked {
    /// Rows of segments journaled as waiting for blobs.
    waiting: usize,
}

/// Reads every row of DEST's map back from the segments the journal
/// lists and checks that every object a row's object names has a row.
fn assert_closed_and_read_back(dest: &Path, what: &str) -> Checked {
    let db = rusqlite::Connection::open_with_flags(
        dest.join("rehash/map.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    let journaled: Vec<String> = db
        .prepare("SELECT pack FROM segments ORDER BY seq")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let waiting: i64 = db
        .query_row(
            "SELECT coalesce(sum(length(rows) / 53), 0) FROM waiting_rows",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let packs: Vec<Pack> = journaled
        .iter()
        .map(|stem| {
            let idx = dest.join("objects/pack").join(format!("{stem}.idx"));
            Pack::open(&idx, HashKind::Sha256)
                .unwrap_or_else(|e| panic!("{what}: journaled segment {stem}: {e}"))
        })
        .collect();
    let segments = Segments { packs: &packs };

    // "<sha1> <sha256> <type>": the rows readers see (merged and staged).
    let export = rehash_export_text(dest);
    let rows: BTreeMap<String, String> = export
        .lines()
        .map(|line| {
            let mut fields = line.split(' ');
            let (_, sha256, kind) = (fields.next(), fields.next(), fields.next());
            (sha256.unwrap().to_string(), kind.unwrap().to_string())
        })
        .collect();
    for (sha256, kind) in &rows {
        let id = ObjectId::parse_hex(HashKind::Sha256, sha256).unwrap();
        let (read_kind, body) = segments
            .read(&id)
            .unwrap_or_else(|| panic!("{what}: row {sha256} is in no journaled segment"));
        assert_eq!(read_kind.as_str(), kind, "{what}: {sha256}'s type");
        assert_eq!(
            sha256_object_id(read_kind, &body),
            id,
            "{what}: {sha256} does not read back"
        );
        for named in references(read_kind, &body) {
            let hex = named.to_hex();
            assert!(
                rows.contains_key(&hex) || is_well_known(&named),
                "{what}: {kind} {sha256} names {hex}, which has no row"
            );
        }
    }
    Checked {
        waiting: waiting as usize,
    }
}

/// The ids that map without a row: the empty tree and the empty blob.
fn is_well_known(id: &ObjectId) -> bool {
    *id == HashKind::Sha256.empty_tree() || *id == HashKind::Sha256.empty_blob()
}

/// A conversion's segments read as one object store: a REF_DELTA's base
/// may be in any of them.
struct Segments<'a> {
    packs: &'a [Pack],
}

impl Segments<'_> {
    fn read(&self, id: &ObjectId) -> Option<(ObjectKind, Vec<u8>)> {
        let (pack, offset) = self
            .packs
            .iter()
            .find_map(|p| p.find(id).map(|offset| (p, offset)))?;
        let mut out = Vec::new();
        let external = |base: &ObjectId| self.read(base);
        let kind = pack
            .read_at(offset, &mut DeltaCache::new(0), &external, &mut out)
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        Some((kind, out))
    }
}

/// The SHA-256 ids a tree, commit or tag names (a tree's gitlinks aside:
/// they name commits of another repository).
fn references(kind: ObjectKind, body: &[u8]) -> Vec<ObjectId> {
    let hex = |s: &[u8]| ObjectId::from_hex(HashKind::Sha256, s).expect("a SHA-256 id");
    match kind {
        ObjectKind::Blob => Vec::new(),
        ObjectKind::Tree => {
            let mut named = Vec::new();
            let mut rest = body;
            while !rest.is_empty() {
                let nul = rest.iter().position(|&b| b == 0).unwrap();
                let mode = &rest[..rest.iter().position(|&b| b == b' ').unwrap()];
                let raw = &rest[nul + 1..nul + 33];
                if mode != b"160000" {
                    named.push(ObjectId::from_raw(HashKind::Sha256, raw).unwrap());
                }
                rest = &rest[nul + 33..];
            }
            named
        }
        ObjectKind::Commit | ObjectKind::Tag => {
            let header = &body[..body
                .windows(2)
                .position(|w| w == b"\n\n")
                .unwrap_or(body.len())];
            header
                .split(|&b| b == b'\n')
                .filter_map(|line| {
                    ["tree ", "parent ", "object "]
                        .iter()
                        .find_map(|key| line.strip_prefix(key.as_bytes()))
                })
                .map(hex)
                .collect()
        }
    }
}

/// What the resumed runs' counts say: this run's objects and the earlier
/// runs' add up to the objects listed.
#[test]
fn a_resumed_runs_counts_add_up_to_the_objects_listed() {
    let source = make_source("resumed-counts");
    let dest = scratch_dir("resumed-counts-run").join("dest.git");
    convert_killed_at(&source, &dest, "committed:6");
    let out = run_ok(convert_cmd(&source, &dest).arg("--json"));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = &report["result"];
    let count = |key: &str| result[key].as_u64().unwrap();
    assert!(count("objects_already_converted") > 0, "{result}");
    assert!(count("objects_converted") > 0, "{result}");
    assert_eq!(
        count("objects_converted")
            + count("objects_already_converted")
            + count("objects_in_shared_pool")
            + count("objects_left_out"),
        count("objects_listed"),
        "{result}"
    );
    let by_type: u64 = result["objects_by_type"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(by_type, count("objects_converted"), "{result}");
    assert!(
        count("objects_from_interrupted_runs") <= count("objects_already_converted"),
        "{result}"
    );
}
