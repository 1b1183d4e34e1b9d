//! The share of a DEST converted with `--shared-with`: its map has rows
//! for its own objects only and names the pool's conversion, whose objects
//! git reaches through DEST's `objects/info/alternates`.
//!
//! Checked here: the alternates file names the pool's `objects/` (and is
//! absent from a DEST that shares nothing); the pool, and each pool it
//! shares with in turn, is a finished git-rehash conversion; every row of
//! their maps has its object in the object directories git reaches from
//! DEST; no object has one name in DEST's map and another in a pool's.
//! The pools' rows then answer the lookups DEST's own rows cannot
//! ([`MapIndex::set_shared`]): the references of DEST's objects are
//! translated back through them and refs naming the pool's objects name
//! present objects. With the pool's own invariant (its map is closed under
//! references, which `verify POOL-DEST` checks), everything DEST's refs
//! reach is then in DEST or in the pool.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::error::VerifyError;
use super::map_index::{MapIndex, Row, read_rows};
use super::objects_check::Sink;
use super::problem::Problem;
use crate::hash::{HashKind, ObjectId};
use crate::idmap::{IdMap, open_shared_maps};
use crate::loose;
use crate::pack::{IndexFile, list_packs};
use crate::repo::{alternates, dest_layout};

/// Checks the share of the DEST at `dest` whose map is `map_file`, and
/// returns the rows of the pools' maps (`None` when DEST shares nothing).
pub fn check_share(
    dest: &Path,
    map_file: &Path,
    own: &MapIndex,
    sink: &Sink,
) -> Result<Option<MapIndex>, VerifyError> {
    let map = IdMap::open_read_only(map_file)?;
    let direction = own.direction();
    let layout = |reason: String| sink.report(Problem::SharedLayout { reason });
    let alternates_file = dest_layout::alternates(dest);
    let Some(pool) = map.shared_with()? else {
        if alternates_file.exists() {
            layout(format!(
                "{} exists, but the map records no pool DEST shares objects with",
                alternates_file.display()
            ));
        }
        return Ok(None);
    };
    let borrowed = match alternates::alternate_object_dirs(&dest_layout::objects_dir(dest)) {
        Ok(dirs) => dirs,
        Err(e) => {
            layout(e.to_string());
            Vec::new()
        }
    };
    let pool_objects = std::fs::canonicalize(dest_layout::objects_dir(&pool))
        .unwrap_or_else(|_| dest_layout::objects_dir(&pool));
    if borrowed.first() != Some(&pool_objects) {
        layout(format!(
            "{} does not name the pool's {} first",
            alternates_file.display(),
            pool_objects.display()
        ));
    }
    let maps = match open_shared_maps(&map) {
        Ok(maps) => maps,
        Err(e) => {
            layout(e.to_string());
            return Ok(None);
        }
    };
    let mut rows = Vec::new();
    for pool_map in &maps {
        if pool_map.meta("state")?.as_deref() != Some("complete") {
            layout(format!(
                "the pool's conversion ({}) has not finished",
                pool_map.path().display()
            ));
        }
        let first = rows.len();
        read_rows(pool_map, &mut rows)?;
        check_present(
            &rows[first..],
            pool_map.path(),
            &borrowed,
            direction.dest(),
            sink,
        );
    }
    let shared = MapIndex::from_rows(rows);
    own.for_each_row(|row| {
        let (source, dest) =
            direction.split(ObjectId::Sha1(row.sha1), ObjectId::Sha256(row.sha256));
        if let Some(pos) = shared.find(&source)
            && shared.name_in(pos, direction.dest()) != dest
        {
            sink.report(Problem::SharedConflict {
                original: source,
                own: dest,
                pool: shared.name_in(pos, direction.dest()),
            });
        }
    });
    Ok(Some(shared))
}

/// Reports each of `rows` (of the map at `map_path`) whose object none of
/// `dirs` stores, packed or loose, by its name in `hash` (DEST's).
fn check_present(rows: &[Row], map_path: &Path, dirs: &[PathBuf], hash: HashKind, sink: &Sink) {
    let mut indexes = Vec::new();
    for dir in dirs {
        let pack_dir = dir.join("pack");
        for idx in list_packs(&pack_dir).unwrap_or_default() {
            match IndexFile::open(&idx, hash) {
                Ok(index) => indexes.push(index),
                Err(e) => sink.report(Problem::Unreadable {
                    path: idx,
                    reason: e.to_string(),
                }),
            }
        }
    }
    rows.par_iter().for_each(|row| {
        let id = match hash {
            HashKind::Sha1 => ObjectId::Sha1(row.sha1),
            HashKind::Sha256 => ObjectId::Sha256(row.sha256),
        };
        let stored = indexes.iter().any(|index| index.lookup(&id).is_some())
            || dirs.iter().any(|dir| loose::loose_path(dir, &id).is_file());
        if !stored {
            sink.report(Problem::SharedObjectMissing {
                sha1: ObjectId::Sha1(row.sha1),
                sha256: ObjectId::Sha256(row.sha256),
                kind: row.kind,
                map: map_path.to_path_buf(),
            });
        }
    });
}
