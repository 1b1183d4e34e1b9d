//! SOURCE's own map, when SOURCE is itself a git-rehash DEST (it holds
//! `rehash/map.sqlite`, written by a conversion into SOURCE's hash): its
//! rows name SOURCE's objects in the hash this run converts into, and
//! this run gives every object the name those rows record, so that a
//! repository converted and converted back has the names it started with
//! and the two maps are one bijection.
//!
//! - The rows are checked against this run's names once every object is
//!   named ([`SourceMap::check`]): a row that disagrees (a map edited, or
//!   objects rewritten in SOURCE since) refuses the run, naming the object,
//!   before DEST is published.
//! - A tag whose translation is not exact (its in-body signature had no
//!   final LF: docs/translation.md, "Round trips") gets back the bytes its
//!   recorded name hashes: its rows are read before the map pass
//!   ([`SourceMap::tag_names`]).
//! - The commits the rows record as translated with a verbatim mergetag
//!   are translated back so ([`SourceMap::verbatim_mergetags`]), and the
//!   gitlink pairs SOURCE's conversion used (`rehash/gitlinks.txt`) name
//!   SOURCE's gitlinks ([`SourceMap::gitlinks`]).
//!
//! The map is read through SQLite's immutable mode: nothing is written
//! into SOURCE.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::convert::error::{ConvertError, CorruptInput};
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::{Direction, ObjectId};
use crate::idmap::{ForEachError, IdMap};
use crate::object::ObjectKind;
use crate::repo::{SourceRepo, dest_layout};

/// The map of the conversion that made SOURCE.
pub struct SourceMap {
    /// Behind a lock: a run's phases share it across threads, SQLite's
    /// connection may not be.
    map: Mutex<IdMap>,
    path: PathBuf,
    /// SOURCE's git directory.
    git_dir: PathBuf,
}

/// Rows that disagree with this run's names are reported up to this many.
const REPORTED: usize = 10;

impl SourceMap {
    /// SOURCE's map, if SOURCE has one. A map that is not a finished
    /// conversion into SOURCE's hash is refused: its rows cannot be SOURCE's.
    pub fn open(source: &SourceRepo) -> Result<Option<Self>, ConvertError> {
        let path = dest_layout::map_db(&source.git_dir);
        if !path.is_file() {
            return Ok(None);
        }
        let map = IdMap::open_immutable(&path)?;
        let recorded = map.direction()?;
        let state = map.meta("state")?.unwrap_or_default();
        if recorded.dest() != source.object_format || state != "complete" {
            let reason = if state != "complete" {
                format!("its conversion has not finished (state {state:?})")
            } else {
                format!("it names objects converted into {}", recorded.dest())
            };
            return Err(CorruptInput::SourceMap {
                map: path,
                reason: format!(
                    "{reason}, but SOURCE names its objects in {}",
                    source.object_format
                ),
            }
            .into());
        }
        Ok(Some(SourceMap {
            map: Mutex::new(map),
            path,
            git_dir: source.git_dir.clone(),
        }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn map(&self) -> std::sync::MutexGuard<'_, IdMap> {
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The gitlink pairs SOURCE's conversion named its gitlinks with,
    /// when it recorded any (a file `--submodule-map` reads).
    pub fn gitlinks(&self) -> Option<PathBuf> {
        Some(dest_layout::gitlinks(&self.git_dir)).filter(|p| p.is_file())
    }

    /// The commits of `table` the rows record as translated with a
    /// verbatim mergetag, sorted: translated back the same way.
    pub fn verbatim_mergetags(&self, table: &ObjectTable) -> Result<Vec<u32>, ConvertError> {
        let direction = table.direction().inverse();
        let map = self.map();
        let mut commits = Vec::new();
        for sha1 in map.verbatim_mergetags()? {
            if let Some(row) = map.lookup(&sha1)?
                && let Some(at) = table.find(&direction.split(row.sha1, row.sha256).1)
            {
                commits.push(at);
            }
        }
        commits.sort_unstable();
        Ok(commits)
    }

    /// The names the rows give the tags of `table` (by table index): a
    /// tag whose translation is not exact is written in the form that
    /// hashes to it.
    pub fn tag_names(&self, table: &ObjectTable) -> Result<Vec<(u32, ObjectId)>, ConvertError> {
        let mut names = Vec::new();
        self.for_each_row(table, |at, kind, name| {
            if kind == ObjectKind::Tag {
                names.push((at, name));
            }
        })?;
        names.sort_unstable_by_key(|&(at, _)| at);
        Ok(names)
    }

    /// Checks every row against the names `table` gave SOURCE's objects:
    /// the first rows that disagree refuse the run.
    pub fn check(&self, table: &ObjectTable) -> Result<(), ConvertError> {
        let mut disagree = Vec::new();
        self.for_each_row(table, |at, kind, recorded| {
            if let Some(named) = table.dest_id(at)
                && named != recorded
                && disagree.len() < REPORTED
            {
                disagree.push((table.source_id(at), kind, recorded, named));
            }
        })?;
        match disagree.first() {
            None => Ok(()),
            Some(&(id, kind, recorded, named)) => Err(CorruptInput::SourceMapDisagrees {
                map: self.path().to_path_buf(),
                id,
                kind,
                recorded,
                named,
                others: disagree.len() - 1,
            }
            .into()),
        }
    }

    /// Calls `f` with the table index, type and recorded name (in the hash
    /// this run converts into) of every row whose object `table` holds.
    fn for_each_row(
        &self,
        table: &ObjectTable,
        mut f: impl FnMut(u32, ObjectKind, ObjectId),
    ) -> Result<(), ConvertError> {
        // The rows' direction is this run's inverse: SOURCE's names are
        // their DEST side.
        let direction: Direction = table.direction().inverse();
        self.map()
            .for_each(|row| {
                let (recorded, source) = direction.split(row.sha1, row.sha256);
                if let Some(at) = table.find(&source) {
                    f(at, row.kind, recorded);
                }
                Ok(())
            })
            .map_err(|e| match e {
                ForEachError::Map(e) => ConvertError::Map(e),
                ForEachError::Io(e) => ConvertError::io(self.path(), e),
            })
    }
}
