//! The map database read into memory for verification: every row sorted by
//! SHA-256, a SHA-1 -> row index, so that either name finds its row, and one
//! "seen in DEST" flag per row. Which name is DEST's follows the direction
//! the map records.
//!
//! Built from the database directly (not from the converter's object
//! table), so a bug in the converter's table cannot hide itself here.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::hash::{Direction, HashKind, ObjectId};
use crate::idmap::{ForEachError, IdMap, IdMapError};
use crate::object::ObjectKind;

/// One map row, in raw form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    pub sha256: [u8; 32],
    pub sha1: [u8; 20],
    pub kind: ObjectKind,
}

/// A gitlink target's pair: (SHA-256, SHA-1).
pub type GitlinkPair = ([u8; 32], [u8; 20]);

/// Every pair of the map, searchable both ways.
pub struct MapIndex {
    /// Sorted by SHA-256.
    rows: Vec<Row>,
    /// Positions in `rows`, sorted by the row's SHA-1.
    by_sha1: Vec<u32>,
    seen: Vec<AtomicBool>,
    /// Extra pairs that are not objects of DEST: gitlink targets (submodule
    /// commits), sorted by SHA-256. Used for translation only.
    gitlinks: Vec<GitlinkPair>,
    /// Objects the conversion created (`--rekey-notes`), with no name in
    /// SOURCE's hash: sorted by name, each with its "seen in DEST" flag.
    created: Vec<Created>,
    created_seen: Vec<AtomicBool>,
    /// The rows of the pools DEST shares objects with (`shared.rs`): names
    /// for lookups, not objects DEST must store.
    shared: Option<Box<MapIndex>>,
    /// Positions of the commits translated with a verbatim mergetag
    /// (`--unmapped-mergetags=verbatim`), sorted.
    verbatim_mergetags: Vec<u32>,
    /// Which way the conversion went: DEST's names are `direction.dest()`'s.
    direction: Direction,
}

/// An object of the map's `created` table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Created {
    /// Its name, in DEST's hash.
    pub name: ObjectId,
    pub kind: ObjectKind,
    /// For a commit a ref names instead of SOURCE's translated value: that
    /// translated value (the commit's parent).
    pub base: Option<ObjectId>,
}

impl MapIndex {
    /// Reads every row of the database at `path`.
    pub fn load(path: &Path) -> Result<Self, IdMapError> {
        let map = IdMap::open_read_only(path)?;
        let mut rows = Vec::with_capacity(map.count()? as usize);
        read_rows(&map, &mut rows)?;
        let mut index = Self::from_rows(rows);
        index.direction = map.direction()?;
        let created = map
            .created()?
            .into_iter()
            .map(|row| Created {
                name: row.name,
                kind: row.kind,
                base: row.stands_for.map(|(_, base)| base),
            })
            .collect();
        index.set_created(created);
        index.set_verbatim_mergetags(&map.verbatim_mergetags()?);
        Ok(index)
    }

    /// Marks the commits (SHA-1 names) translated with a verbatim
    /// mergetag; names without a row are ignored (the row check reports
    /// what is missing).
    pub fn set_verbatim_mergetags(&mut self, commits: &[ObjectId]) {
        let mut positions: Vec<u32> = commits
            .iter()
            .filter_map(|id| match id {
                ObjectId::Sha1(raw) => self.find_sha1(raw),
                ObjectId::Sha256(_) => None,
            })
            .collect();
        positions.sort_unstable();
        positions.dedup();
        self.verbatim_mergetags = positions;
    }

    /// Whether the row at `pos` is a commit translated with a verbatim
    /// mergetag.
    pub fn keeps_mergetags(&self, pos: u32) -> bool {
        self.verbatim_mergetags.binary_search(&pos).is_ok()
    }

    /// How many commits were translated with a verbatim mergetag.
    pub fn verbatim_mergetag_count(&self) -> usize {
        self.verbatim_mergetags.len()
    }

    /// Which way the conversion went.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// Sets the objects the conversion created (no counterpart in SOURCE's
    /// hash).
    pub fn set_created(&mut self, mut created: Vec<Created>) {
        created.sort_unstable_by_key(|c| c.name);
        created.dedup_by_key(|c| c.name);
        self.created_seen = created.iter().map(|_| AtomicBool::new(false)).collect();
        self.created = created;
    }

    /// The created object named `id`, and its position.
    pub fn find_created(&self, id: &ObjectId) -> Option<(u32, Created)> {
        self.created
            .binary_search_by(|c| c.name.cmp(id))
            .ok()
            .map(|p| (p as u32, self.created[p]))
    }

    /// Marks a created object as found in DEST; returns whether it already was.
    pub fn mark_created_seen(&self, pos: u32) -> bool {
        self.created_seen[pos as usize].swap(true, Ordering::Relaxed)
    }

    /// Created objects no object of DEST matched.
    pub fn unseen_created(&self) -> impl Iterator<Item = Created> + '_ {
        self.created
            .iter()
            .zip(&self.created_seen)
            .filter(|(_, s)| !s.load(Ordering::Relaxed))
            .map(|(c, _)| *c)
    }

    pub fn created_len(&self) -> usize {
        self.created.len()
    }

    /// Whether `found` (a ref's value in DEST) is a created commit standing
    /// on `expected` (the translation of SOURCE's value).
    pub fn stands_on(&self, found: &ObjectId, expected: &ObjectId) -> bool {
        self.find_created(found)
            .is_some_and(|(_, c)| c.base.as_ref() == Some(expected))
    }

    pub fn from_rows(mut rows: Vec<Row>) -> Self {
        rows.sort_unstable_by_key(|r| r.sha256);
        let mut by_sha1: Vec<u32> = (0..rows.len() as u32).collect();
        by_sha1.sort_unstable_by_key(|&p| rows[p as usize].sha1);
        let seen = rows.iter().map(|_| AtomicBool::new(false)).collect();
        MapIndex {
            rows,
            by_sha1,
            seen,
            gitlinks: Vec::new(),
            created: Vec::new(),
            created_seen: Vec::new(),
            shared: None,
            verbatim_mergetags: Vec::new(),
            direction: Direction::FORWARD,
        }
    }

    /// Adds the rows of the pools DEST shares objects with: lookups by
    /// either name fall back to them.
    pub fn set_shared(&mut self, shared: MapIndex) {
        self.shared = Some(Box::new(shared));
    }

    /// Calls `f` with every row (DEST's own).
    pub fn for_each_row(&self, f: impl FnMut(&Row)) {
        self.rows.iter().for_each(f)
    }

    /// Adds the pairs of gitlink targets (SHA-1, SHA-256).
    pub fn set_gitlinks(&mut self, mut pairs: Vec<GitlinkPair>) {
        pairs.sort_unstable();
        pairs.dedup();
        self.gitlinks = pairs;
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn row(&self, pos: u32) -> Row {
        self.rows[pos as usize]
    }

    /// The position of the row that names `id`, in either hash.
    pub fn find(&self, id: &ObjectId) -> Option<u32> {
        match id {
            ObjectId::Sha1(raw) => self.find_sha1(raw),
            ObjectId::Sha256(raw) => self.find_sha256(raw),
        }
    }

    /// The name the row at `pos` gives its object in `hash`.
    pub fn name_in(&self, pos: u32, hash: HashKind) -> ObjectId {
        let row = self.rows[pos as usize];
        match hash {
            HashKind::Sha1 => ObjectId::Sha1(row.sha1),
            HashKind::Sha256 => ObjectId::Sha256(row.sha256),
        }
    }

    /// The other name of `id`, either way: [`MapIndex::reverse`] or
    /// [`MapIndex::forward`].
    pub fn other_name(&self, id: &ObjectId) -> Option<ObjectId> {
        match id.kind() {
            HashKind::Sha1 => self.forward(id),
            HashKind::Sha256 => self.reverse(id),
        }
    }

    /// The position of the row whose SHA-256 is `id`.
    pub fn find_sha256(&self, id: &[u8; 32]) -> Option<u32> {
        self.rows
            .binary_search_by(|r| r.sha256.cmp(id))
            .ok()
            .map(|p| p as u32)
    }

    /// The position of the row whose SHA-1 is `id`.
    pub fn find_sha1(&self, id: &[u8; 20]) -> Option<u32> {
        self.by_sha1
            .binary_search_by(|&p| self.rows[p as usize].sha1.cmp(id))
            .ok()
            .map(|i| self.by_sha1[i])
    }

    /// SHA-256 -> SHA-1 for the inverse translation: map rows, then gitlink
    /// pairs. (The well-known ids are answered by the translator itself.)
    pub fn reverse(&self, id: &ObjectId) -> Option<ObjectId> {
        let ObjectId::Sha256(raw) = id else {
            return None;
        };
        if let Some(p) = self.find_sha256(raw) {
            return Some(ObjectId::Sha1(self.rows[p as usize].sha1));
        }
        if let Some(found) = self.shared.as_ref().and_then(|s| s.reverse(id)) {
            return Some(found);
        }
        self.gitlinks
            .binary_search_by(|(s, _)| s.cmp(raw))
            .ok()
            .map(|i| ObjectId::Sha1(self.gitlinks[i].1))
    }

    /// SHA-1 -> SHA-256 (ref checks and forward re-translation).
    pub fn forward(&self, id: &ObjectId) -> Option<ObjectId> {
        let ObjectId::Sha1(raw) = id else {
            return None;
        };
        if let Some(p) = self.find_sha1(raw) {
            return Some(ObjectId::Sha256(self.rows[p as usize].sha256));
        }
        if let Some(found) = self.shared.as_ref().and_then(|s| s.forward(id)) {
            return Some(found);
        }
        self.gitlinks
            .iter()
            .find(|(_, s1)| s1 == raw)
            .map(|(s256, _)| ObjectId::Sha256(*s256))
    }

    /// Marks a row as found in DEST; returns whether it was already marked
    /// (the same object stored twice).
    pub fn mark_seen(&self, pos: u32) -> bool {
        self.seen[pos as usize].swap(true, Ordering::Relaxed)
    }

    /// Rows no object of DEST matched.
    pub fn unseen(&self) -> impl Iterator<Item = Row> + '_ {
        self.rows
            .iter()
            .zip(&self.seen)
            .filter(|(_, s)| !s.load(Ordering::Relaxed))
            .map(|(r, _)| *r)
    }

    /// SHA-256 names that appear in more than one row, and SHA-1 names
    /// likewise (the map must be a bijection for the inverse to exist).
    pub fn duplicates(&self) -> Vec<ObjectId> {
        let mut out: Vec<ObjectId> = self
            .rows
            .windows(2)
            .filter(|w| w[0].sha256 == w[1].sha256)
            .map(|w| ObjectId::Sha256(w[0].sha256))
            .collect();
        out.extend(
            self.by_sha1
                .windows(2)
                .filter(|w| self.rows[w[0] as usize].sha1 == self.rows[w[1] as usize].sha1)
                .map(|w| ObjectId::Sha1(self.rows[w[0] as usize].sha1)),
        );
        out
    }

    /// Whether `id` (of kind `hash`) is an object of the map (created
    /// objects included) or of the pools DEST shares with.
    pub fn contains(&self, id: &ObjectId) -> bool {
        let own = self.find(id).is_some() || self.find_created(id).is_some();
        own || self.shared.as_ref().is_some_and(|s| s.contains(id))
    }
}

/// Appends every row of `map` to `rows`.
pub fn read_rows(map: &IdMap, rows: &mut Vec<Row>) -> Result<(), IdMapError> {
    let result = map.for_each(|row| {
        if let (ObjectId::Sha256(sha256), ObjectId::Sha1(sha1)) = (row.sha256, row.sha1) {
            rows.push(Row {
                sha256,
                sha1,
                kind: row.kind,
            });
        }
        Ok(())
    });
    match result {
        Ok(()) => Ok(()),
        Err(ForEachError::Map(e)) => Err(e),
        Err(ForEachError::Io(_)) => unreachable!("the row consumer does no I/O"),
    }
}
