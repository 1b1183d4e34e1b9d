//! `--shared-with POOL-DEST`: a fork converted against an earlier
//! conversion of the pool it borrows from.
//!
//! A fork network keeps its objects once, in the pool, and each fork only
//! its own, borrowing the rest through `objects/info/alternates`. Converted
//! self-contained, every fork would hold the pool's objects again. With a
//! share, the objects POOL-DEST's map already names (its own and those of
//! the pools it shares with in turn) keep the pool's SHA-256 names: they
//! are neither read, nor written, nor given rows in DEST's map, and the
//! objects DEST does convert name them through the pool's map. DEST
//! borrows them from POOL-DEST's `objects/` (its alternates file), and its
//! map records the share (`meta.shared_with`), so `map` and `verify` follow
//! it and later runs keep it.

use std::path::{Path, PathBuf};

use super::error::{ConvertError, Refusal};
use super::resume::for_each_row;
use super::source_objects::table::ObjectTable;
use crate::durable;
use crate::idmap::{IdMap, IdMapError, open_shared_maps};
use crate::repo::{alternates, dest_layout};

/// The pool's conversion, its map and the maps it shares with, open
/// read-only.
pub struct SharedPool {
    /// POOL-DEST, absolute, symlinks resolved.
    pub dest: PathBuf,
    /// Its map, then those of the pools it shares with.
    maps: Vec<IdMap>,
}

/// POOL-DEST as an absolute path with symlinks resolved: how DEST records
/// it, so that a later run naming it differently still matches.
pub fn canonical_pool(pool: &Path) -> Result<PathBuf, ConvertError> {
    std::fs::canonicalize(pool).map_err(|e| {
        Refusal::SharedPool {
            pool: pool.to_path_buf(),
            reason: format!("{e}"),
        }
        .into()
    })
}

impl SharedPool {
    /// Opens the pool's conversion at `pool` (canonical, see
    /// [`canonical_pool`]) for the conversion into `dest`, refusing what
    /// cannot be shared: not a git-rehash DEST, not finished, DEST itself.
    pub fn open(pool: &Path, dest: &Path) -> Result<Self, ConvertError> {
        let refuse = |reason: String| -> ConvertError {
            Refusal::SharedPool {
                pool: pool.to_path_buf(),
                reason,
            }
            .into()
        };
        if std::fs::canonicalize(dest).is_ok_and(|dest| dest == pool) {
            return Err(refuse(
                "it is DEST itself; name the pool's conversion".into(),
            ));
        }
        let map_path = dest_layout::map_db(pool);
        if !map_path.is_file() {
            return Err(refuse(format!(
                "it is not a git-rehash conversion (no {}); convert the pool first",
                map_path.display()
            )));
        }
        let map = IdMap::open_read_only(&map_path)?;
        let state = map.meta("state")?.unwrap_or_default();
        if state != "complete" || !dest_layout::config(pool).is_file() {
            return Err(refuse(
                "its conversion has not finished (or is being updated); run it to the end first"
                    .into(),
            ));
        }
        let shared = open_shared_maps(&map).map_err(|e| match e {
            IdMapError::BrokenShare { .. } => refuse(e.to_string()),
            e => e.into(),
        })?;
        Ok(SharedPool {
            dest: pool.to_path_buf(),
            maps: std::iter::once(map).chain(shared).collect(),
        })
    }

    /// Marks every object of `table` the pool's maps name, and no earlier
    /// run of this conversion did, as the pool's. Returns how many.
    pub fn load(&self, table: &mut ObjectTable) -> Result<u64, ConvertError> {
        let mut shared = 0u64;
        for map in &self.maps {
            for_each_row(map, table, |table, i, kind, dest| {
                if !table.is_mapped(i) {
                    table.set_shared(i, kind, dest);
                    shared += 1;
                }
            })?;
        }
        Ok(shared)
    }

    /// Writes DEST's `objects/info/alternates`, naming the pool's
    /// `objects/` (git follows the pool's own alternates from there).
    pub fn write_alternates(&self, dest: &Path) -> Result<(), ConvertError> {
        let objects = dest_layout::objects_dir(&self.dest);
        durable::write_file(
            &dest_layout::alternates(dest),
            &alternates::render(&objects),
        )?;
        Ok(())
    }
}
