//! Pairs for objects that are not in SOURCE: the commits gitlinks pin in
//! submodules (docs/translation.md, "Gitlinks").
//!
//! They come from `--submodule-map FILE`: a map database written by an
//! earlier git-rehash conversion of the submodule (`rehash/map.sqlite`;
//! its commit rows are used) or a text file of `<sha1> <sha256>` lines
//! (further columns, `#` comments and blank lines are ignored, so
//! `git-rehash map --export` output works), read both ways: a conversion
//! from SHA-256 asks for the SHA-1 names of SHA-256 gitlinks. With
//! `--unmapped-gitlinks=placeholder`, gitlinks no map knows get a
//! deterministic surrogate name in the other hash instead
//! ([`surrogate_for`]).

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
    /// A placeholder SHA-256 name: the real one is unknown.
    Surrogate,
    /// A placeholder SHA-1 name: the real one is unknown.
    Sha1Surrogate,
}

impl PairOrigin {
    pub fn as_str(self) -> &'static str {
        use super::recorded::origin;
        match self {
            PairOrigin::SubmoduleMap => origin::SUBMODULE_MAP,
            PairOrigin::Surrogate => origin::SURROGATE,
            PairOrigin::Sha1Surrogate => origin::SHA1_SURROGATE,
        }
    }
}

/// SHA-1 <-> SHA-256 pairs for gitlink targets, sorted by SHA-1 and
/// searchable by either name: a conversion from SHA-1 asks for SHA-256
/// names, one from SHA-256 for SHA-1 names.
#[derive(Clone, Debug, Default)]
pub struct ExternalMap {
    pairs: Vec<([u8; 20], [u8; 32], PairOrigin)>,
    /// Positions in `pairs`, by SHA-256.
    by_sha256: Vec<u32>,
}

impl ExternalMap {
    /// Reads every file; a name given two different names in the other
    /// hash is refused.
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
        self.sort();
        let contradiction = |one: ObjectId, two: [ObjectId; 2]| {
            invalid(
                file,
                format!(
                    "{one} is paired with two {} names ({} and {})",
                    two[0].kind(),
                    two[0],
                    two[1]
                ),
            )
        };
        if let Some(w) = self.pairs.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(contradiction(
                ObjectId::Sha1(w[0].0),
                [ObjectId::Sha256(w[0].1), ObjectId::Sha256(w[1].1)],
            ));
        }
        if let Some(w) = self
            .by_sha256
            .windows(2)
            .find(|w| self.sha256_at(w[0]) == self.sha256_at(w[1]))
        {
            let (a, b) = (self.pairs[w[0] as usize], self.pairs[w[1] as usize]);
            return Err(contradiction(
                ObjectId::Sha256(a.1),
                [ObjectId::Sha1(a.0), ObjectId::Sha1(b.0)],
            ));
        }
        Ok(())
    }

    /// Gives each id a surrogate name in the other hash ([`surrogate_for`];
    /// ids already paired are skipped).
    pub fn add_surrogates(&mut self, ids: impl IntoIterator<Item = ObjectId>) {
        for id in ids {
            if self.get(&id).is_some() {
                continue;
            }
            match (id, surrogate_for(&id)) {
                (ObjectId::Sha1(a), ObjectId::Sha256(b)) => {
                    self.pairs.push((a, b, PairOrigin::Surrogate))
                }
                (ObjectId::Sha256(b), ObjectId::Sha1(a)) => {
                    self.pairs.push((a, b, PairOrigin::Sha1Surrogate))
                }
                _ => unreachable!("a surrogate is of the other hash"),
            }
        }
        self.sort();
    }

    /// The other name of a gitlink target.
    pub fn get(&self, id: &ObjectId) -> Option<ObjectId> {
        self.entry(id).map(|(s, _)| s)
    }

    /// Every pair, as (SHA-1, SHA-256), by SHA-1.
    pub fn pairs(&self) -> impl Iterator<Item = (ObjectId, ObjectId)> + '_ {
        self.pairs
            .iter()
            .map(|(a, b, _)| (ObjectId::Sha1(*a), ObjectId::Sha256(*b)))
    }

    /// The other name of a gitlink target, and where the pair came from.
    pub fn entry(&self, id: &ObjectId) -> Option<(ObjectId, PairOrigin)> {
        let pair = match id {
            ObjectId::Sha1(raw) => self.pairs.binary_search_by(|p| p.0.cmp(raw)).ok(),
            ObjectId::Sha256(raw) => self
                .by_sha256
                .binary_search_by(|&p| self.sha256_at(p).cmp(raw))
                .ok()
                .map(|i| self.by_sha256[i] as usize),
        }?;
        let (sha1, sha256, origin) = self.pairs[pair];
        let other = match id {
            ObjectId::Sha1(_) => ObjectId::Sha256(sha256),
            ObjectId::Sha256(_) => ObjectId::Sha1(sha1),
        };
        Some((other, origin))
    }

    fn sha256_at(&self, p: u32) -> &[u8; 32] {
        &self.pairs[p as usize].1
    }

    /// Sorts the pairs (one of each), and their order by SHA-256.
    fn sort(&mut self) {
        self.pairs.sort_unstable_by_key(|p| (p.0, p.1));
        self.pairs.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        let mut by_sha256: Vec<u32> = (0..self.pairs.len() as u32).collect();
        by_sha256.sort_unstable_by_key(|&p| self.pairs[p as usize].1);
        self.by_sha256 = by_sha256;
    }
}

/// The placeholder name, in the other hash, of a gitlink target no map
/// knows: the hash of `"git-rehash surrogate gitlink " + <its hex>`, so
/// the same target always gets the same name and no real object has it.
/// A SHA-1 target gets a SHA-256 stand-in, a SHA-256 target a SHA-1 one.
pub fn surrogate_for(id: &ObjectId) -> ObjectId {
    const PREFIX: &[u8] = b"git-rehash surrogate gitlink ";
    let hex = id.to_hex();
    match id.kind() {
        HashKind::Sha1 => {
            use sha2::{Digest, Sha256};
            ObjectId::Sha256(
                Sha256::new()
                    .chain_update(PREFIX)
                    .chain_update(&hex)
                    .finalize()
                    .into(),
            )
        }
        HashKind::Sha256 => {
            use sha1::{Digest, Sha1};
            ObjectId::Sha1(
                Sha1::new()
                    .chain_update(PREFIX)
                    .chain_update(&hex)
                    .finalize()
                    .into(),
            )
        }
    }
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
        // A SHA-256 target gets a SHA-1 stand-in, found by its name.
        let target = ObjectId::Sha256([9; 32]);
        map.add_surrogates([target]);
        let stand_in = surrogate_for(&target);
        assert_eq!(stand_in.kind(), HashKind::Sha1);
        assert_eq!(
            map.entry(&target),
            Some((stand_in, PairOrigin::Sha1Surrogate))
        );
        assert_eq!(map.get(&stand_in), Some(target));
    }

    #[test]
    fn pairs_answer_both_ways_and_a_sha256_name_twice_paired_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, x) = ("1".repeat(40), "2".repeat(40), "a".repeat(64));
        let file = dir.path().join("pairs.txt");
        std::fs::write(&file, format!("{a} {x}\n")).unwrap();
        let map = ExternalMap::load(&[&file]).unwrap();
        let sha256 = ObjectId::from_hex(HashKind::Sha256, x.as_bytes()).unwrap();
        assert_eq!(map.get(&sha256).unwrap().to_hex(), a);
        let other = dir.path().join("other.txt");
        std::fs::write(&other, format!("{b} {x}\n")).unwrap();
        let Err(GitlinkMapError::Invalid { reason, .. }) = ExternalMap::load(&[&file, &other])
        else {
            panic!("a SHA-256 name paired twice is refused");
        };
        assert!(
            reason.0.contains("paired with two sha1 names"),
            "{}",
            reason.0
        );
    }
}
