//! Pairs for objects that are not in SOURCE: the commits gitlinks pin in
//! submodules (docs/translation.md, "Gitlinks").
//!
//! They come from `--submodule-map FILE`: a map database written by an
//! earlier git-rehash conversion of the submodule (`rehash/map.sqlite`;
//! its commit rows are used) or a text file of `<sha1> <sha256>` lines
//! (further columns, `#` comments and blank lines are ignored, so
//! `git-rehash map --export` output works). With
//! `--unmapped-gitlinks=placeholder`, gitlinks no map knows get a
//! deterministic surrogate SHA-256 name instead ([`surrogate_for`]).

use std::io::Read;
use std::path::Path;

use super::error::{GitlinkMapError, InvalidContent};
use crate::durable::PathError;
use crate::hash::{HashKind, ObjectId};
use crate::idmap::{ForEachError, IdMap};
use crate::object::ObjectKind;

/// Where a pair came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairOrigin {
    /// A `--submodule-map` file (or a recursively converted submodule).
    SubmoduleMap,
    /// A placeholder name: the real SHA-256 is unknown.
    Surrogate,
}

impl PairOrigin {
    pub fn as_str(self) -> &'static str {
        use super::recorded::origin;
        match self {
            PairOrigin::SubmoduleMap => origin::SUBMODULE_MAP,
            PairOrigin::Surrogate => origin::SURROGATE,
        }
    }
}

/// SHA-1 -> SHA-256 pairs for gitlink targets, sorted by SHA-1.
#[derive(Clone, Debug, Default)]
pub struct ExternalMap {
    pairs: Vec<([u8; 20], [u8; 32], PairOrigin)>,
}

impl ExternalMap {
    /// Reads every file; a SHA-1 given two different SHA-256 names is refused.
    pub fn load(files: &[impl AsRef<Path>]) -> Result<Self, GitlinkMapError> {
        let mut map = ExternalMap::default();
        for file in files {
            let file = file.as_ref();
            let mut pairs = Vec::new();
            if is_sqlite(file)? {
                read_database(file, &mut pairs)?;
            } else {
                read_text(file, &mut pairs)?;
            }
            map.extend(file, pairs)?;
        }
        Ok(map)
    }

    /// Adds pairs from `file` (for messages), refusing contradictions.
    pub fn extend(
        &mut self,
        file: &Path,
        pairs: Vec<([u8; 20], [u8; 32])>,
    ) -> Result<(), GitlinkMapError> {
        self.pairs.extend(
            pairs
                .into_iter()
                .map(|(a, b)| (a, b, PairOrigin::SubmoduleMap)),
        );
        self.pairs.sort_unstable_by_key(|p| (p.0, p.1));
        self.pairs.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        if let Some(w) = self.pairs.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(invalid(
                file,
                format!(
                    "{} is paired with two SHA-256 names ({} and {})",
                    ObjectId::Sha1(w[0].0),
                    ObjectId::Sha256(w[0].1),
                    ObjectId::Sha256(w[1].1)
                ),
            ));
        }
        Ok(())
    }

    /// Gives each id a surrogate name (ids already paired are skipped).
    pub fn add_surrogates(&mut self, ids: impl IntoIterator<Item = ObjectId>) {
        for id in ids {
            if let ObjectId::Sha1(raw) = id
                && self.get(&id).is_none()
                && let ObjectId::Sha256(s) = surrogate_for(&id)
            {
                self.pairs.push((raw, s, PairOrigin::Surrogate));
                self.pairs.sort_unstable_by_key(|p| (p.0, p.1));
            }
        }
    }

    /// The SHA-256 name of a SHA-1 gitlink target.
    pub fn get(&self, id: &ObjectId) -> Option<ObjectId> {
        self.entry(id).map(|(s, _)| s)
    }

    /// Every pair, as (SHA-1, SHA-256), by SHA-1.
    pub fn pairs(&self) -> impl Iterator<Item = (ObjectId, ObjectId)> + '_ {
        self.pairs
            .iter()
            .map(|(a, b, _)| (ObjectId::Sha1(*a), ObjectId::Sha256(*b)))
    }

    pub fn entry(&self, id: &ObjectId) -> Option<(ObjectId, PairOrigin)> {
        let ObjectId::Sha1(raw) = id else {
            return None;
        };
        self.pairs
            .binary_search_by(|p| p.0.cmp(raw))
            .ok()
            .map(|i| (ObjectId::Sha256(self.pairs[i].1), self.pairs[i].2))
    }
}

/// The placeholder SHA-256 name of an unmapped gitlink target:
/// SHA-256 of `"git-rehash surrogate gitlink " + <sha1 hex>`, so the same
/// SHA-1 always gets the same name and no real object has it.
pub fn surrogate_for(id: &ObjectId) -> ObjectId {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"git-rehash surrogate gitlink ");
    h.update(id.to_hex().as_bytes());
    let digest: [u8; 32] = h.finalize().into();
    ObjectId::Sha256(digest)
}

fn invalid(path: &Path, reason: String) -> GitlinkMapError {
    GitlinkMapError::Invalid {
        path: path.to_path_buf(),
        reason: InvalidContent(reason),
    }
}

fn is_sqlite(path: &Path) -> Result<bool, GitlinkMapError> {
    let mut head = [0u8; 16];
    let mut f = std::fs::File::open(path).map_err(|e| PathError::new(path, e))?;
    let n = f.read(&mut head).map_err(|e| PathError::new(path, e))?;
    Ok(n == 16 && &head == b"SQLite format 3\0")
}

fn read_database(path: &Path, out: &mut Vec<([u8; 20], [u8; 32])>) -> Result<(), GitlinkMapError> {
    let map = IdMap::open_read_only(path).map_err(|e| invalid(path, e.to_string()))?;
    let result = map.for_each(|row| {
        if row.kind == ObjectKind::Commit
            && let (ObjectId::Sha1(a), ObjectId::Sha256(b)) = (row.sha1, row.sha256)
        {
            out.push((a, b));
        }
        Ok(())
    });
    match result {
        Ok(()) => Ok(()),
        Err(ForEachError::Map(e)) => Err(invalid(path, e.to_string())),
        Err(ForEachError::Io(e)) => Err(PathError::new(path, e).into()),
    }
}

fn read_text(path: &Path, out: &mut Vec<([u8; 20], [u8; 32])>) -> Result<(), GitlinkMapError> {
    let text = std::fs::read(path).map_err(|e| PathError::new(path, e))?;
    for (n, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        let mut fields = line
            .split(|b| b.is_ascii_whitespace())
            .filter(|f| !f.is_empty());
        let sha1 = fields
            .next()
            .and_then(|f| ObjectId::from_hex(HashKind::Sha1, f));
        let sha256 = fields
            .next()
            .and_then(|f| ObjectId::from_hex(HashKind::Sha256, f));
        match (sha1, sha256) {
            (Some(ObjectId::Sha1(a)), Some(ObjectId::Sha256(b))) => out.push((a, b)),
            _ => {
                return Err(invalid(
                    path,
                    format!(
                        "line {}: expected '<sha1> <sha256>', found {:?}",
                        n + 1,
                        String::from_utf8_lossy(line)
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_pairs_load_and_contradictions_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = "1".repeat(40);
        let (x, y) = ("a".repeat(64), "b".repeat(64));
        let good = dir.path().join("good.txt");
        std::fs::write(&good, format!("# comment\n\n{a} {x} commit\n")).unwrap();
        let map = ExternalMap::load(&[&good]).unwrap();
        let id = ObjectId::from_hex(HashKind::Sha1, a.as_bytes()).unwrap();
        assert_eq!(map.get(&id).unwrap().to_hex(), x);
        let bad = dir.path().join("bad.txt");
        std::fs::write(&bad, format!("{a} {y}\n")).unwrap();
        assert!(ExternalMap::load(&[&good, &bad]).is_err());
        std::fs::write(&bad, "nonsense\n").unwrap();
        assert!(ExternalMap::load(&[&bad]).is_err());
    }

    #[test]
    fn surrogates_are_deterministic_and_do_not_override_maps() {
        let id = ObjectId::Sha1([7; 20]);
        assert_eq!(surrogate_for(&id), surrogate_for(&id));
        assert_ne!(surrogate_for(&id), surrogate_for(&ObjectId::Sha1([8; 20])));
        let mut map = ExternalMap::default();
        map.add_surrogates([id]);
        assert_eq!(
            map.entry(&id),
            Some((surrogate_for(&id), PairOrigin::Surrogate))
        );
    }
}
