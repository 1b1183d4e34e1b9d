//! The share of a DEST converted with `--shared-with`: its map holds rows
//! for its own objects only, and names, in `meta`, the conversion of the
//! pool whose objects (and map rows) it borrows. A pool may itself share
//! with another, so the maps that together describe a DEST form a chain.

use std::path::PathBuf;

use super::IdMap;
use super::error::IdMapError;
use crate::repo::dest_layout;

/// The `meta` key naming the pool's DEST (an absolute path); empty or
/// absent when DEST is self-contained.
pub const SHARED_WITH: &str = "shared_with";

/// Pools sharing with pools: at most this many maps below a DEST's own
/// (as git follows at most this many levels of alternates below a
/// repository's own file, plus one).
const MAX_CHAIN: usize = 6;

impl IdMap {
    /// The pool's DEST this map's DEST shares objects with, if any.
    pub fn shared_with(&self) -> Result<Option<PathBuf>, IdMapError> {
        Ok(self
            .meta(SHARED_WITH)?
            .filter(|path| !path.is_empty())
            .map(PathBuf::from))
    }
}

/// The pools' maps `map` shares with, opened read-only, nearest first
/// (its pool's, then that pool's pool's, ...).
pub fn open_shared_maps(map: &IdMap) -> Result<Vec<IdMap>, IdMapError> {
    let mut chain: Vec<IdMap> = Vec::new();
    let mut next = map.shared_with()?;
    while let Some(pool) = next {
        let path = dest_layout::map_db(&pool);
        let broken = |reason: String| IdMapError::BrokenShare {
            path: chain.last().unwrap_or(map).path().to_path_buf(),
            reason,
        };
        if chain.len() == MAX_CHAIN {
            return Err(broken(format!(
                "conversions share with pools more than {MAX_CHAIN} levels deep"
            )));
        }
        if map.path() == path || chain.iter().any(|m| m.path() == path) {
            return Err(broken(format!(
                "{} shares with a pool that shares with it, in a ring",
                pool.display()
            )));
        }
        if !path.is_file() {
            return Err(broken(format!(
                "its pool {} is not a git-rehash conversion (no {})",
                pool.display(),
                path.display()
            )));
        }
        let pool_map = IdMap::open_read_only(&path)?;
        next = pool_map.shared_with()?;
        chain.push(pool_map);
    }
    Ok(chain)
}

/// `map` followed by the maps it shares with: every map that names the
/// objects of its DEST.
pub fn open_with_shares(map: IdMap) -> Result<Vec<IdMap>, IdMapError> {
    let shared = open_shared_maps(&map)?;
    Ok(std::iter::once(map).chain(shared).collect())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::*;
    use crate::idmap::row::MapRow;
    use crate::idmap::test_rows::row;
    use crate::idmap::{HexPrefix, Resolution, Resolver, export_rows};

    /// A map of `rows` at `dest`'s place, sharing with `pool` if given.
    fn map_at(dest: &Path, rows: &[MapRow], pool: Option<&Path>) -> IdMap {
        std::fs::create_dir_all(dest_layout::rehash_dir(dest)).unwrap();
        let mut map = IdMap::open_rw(&dest_layout::map_db(dest)).unwrap();
        map.load(rows.to_vec()).unwrap();
        map.finish_load().unwrap();
        let pool = pool.map(|p| p.display().to_string()).unwrap_or_default();
        map.set_meta(SHARED_WITH, &pool).unwrap();
        map
    }

    fn resolve(resolver: &mut Resolver<'_>, hex: &str) -> Resolution {
        resolver
            .resolve(&HexPrefix::parse(hex.as_bytes()).unwrap())
            .unwrap()
    }

    #[test]
    fn a_shared_map_and_its_pools_answer_as_one() {
        let dir = tempfile::tempdir().unwrap();
        let (fork, mid, pool) = (
            dir.path().join("fork"),
            dir.path().join("mid"),
            dir.path().join("pool"),
        );
        // Two rows whose SHA-1 names share 4 digits: one in the fork, one
        // in the pool.
        let mut by_prefix: BTreeMap<String, u32> = BTreeMap::new();
        let (a, b) = (0..5000)
            .find_map(|n| {
                let prefix = row(n).sha1.to_hex()[..4].to_string();
                by_prefix.insert(prefix, n).map(|m| (m, n))
            })
            .unwrap();
        let fork_rows = [row(a), row(1_000_001), row(1_000_002)];
        let mid_rows = [row(1_000_002), row(1_000_003)];
        let pool_rows = [row(b), row(1_000_004)];
        map_at(&pool, &pool_rows, None);
        map_at(&mid, &mid_rows, Some(&pool));
        map_at(&fork, &fork_rows, Some(&mid));
        let fork_map = IdMap::open_read_only(&dest_layout::map_db(&fork)).unwrap();
        let maps = open_with_shares(fork_map).unwrap();
        assert_eq!(maps.len(), 3);

        let mut resolver = Resolver::over(&maps).unwrap();
        resolver.hold_snapshot().unwrap();
        for r in [row(1_000_001), row(1_000_002), row(1_000_004)] {
            let found = Resolution::Found(r);
            assert_eq!(resolve(&mut resolver, &r.sha1.to_hex()), found);
            assert_eq!(resolve(&mut resolver, &r.sha256.to_hex()[..20]), found);
        }
        let shared_prefix = &row(a).sha1.to_hex()[..4];
        assert_eq!(resolve(&mut resolver, shared_prefix), Resolution::Ambiguous);
        drop(resolver);

        let mut exported = Vec::new();
        export_rows(&maps, None, |r| {
            exported.push(*r);
            Ok(())
        })
        .unwrap();
        let mut expected: Vec<MapRow> = fork_rows
            .iter()
            .chain(&mid_rows)
            .chain(&pool_rows)
            .copied()
            .collect();
        expected.sort_by_key(|r| r.sha1);
        expected.dedup();
        assert_eq!(exported, expected, "each object once, in SHA-1 order");
    }

    #[test]
    fn a_ring_of_shares_and_a_missing_pool_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        let a_map = map_at(&a, &[row(1)], Some(&b));
        map_at(&b, &[row(2)], Some(&a));
        let err = open_shared_maps(&a_map).err().unwrap().to_string();
        assert!(err.contains("ring"), "{err}");

        let c_map = map_at(
            &dir.path().join("c"),
            &[row(3)],
            Some(&dir.path().join("gone")),
        );
        let err = open_shared_maps(&c_map).err().unwrap().to_string();
        assert!(
            err.contains("gone") && err.contains("not a git-rehash conversion"),
            "{err}"
        );
        assert!(
            open_shared_maps(&map_at(&dir.path().join("d"), &[row(4)], None))
                .unwrap()
                .is_empty()
        );
    }
}
