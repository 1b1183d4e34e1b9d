//! The share of a DEST converted with `--shared-with`: its map holds rows
//! for its own objects only, and names, in `meta`, the conversion of the
//! pool whose objects (and map rows) it borrows. A pool may itself share
//! with another, so the maps that together describe a DEST form a chain.

use std::path::PathBuf;

use super::{IdMap, IdMapError};
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
