//! The SHA-1 names of gitlink targets (submodule commits pinned by DEST's
//! trees), which are not objects of DEST: the pairs its conversion used
//! (`rehash/gitlinks.txt`, surrogates included: the way back gives the
//! SHA-1 they stood for), and `--submodule-map` files, read as `convert`
//! reads them: a submodule's `rehash/map.sqlite` (after its own
//! `export-sha1`, it names the commits made in it too) or `<sha1> <sha256>`
//! lines. The pairs the trees made in DEST need are recorded in
//! `rehash/gitlinks.txt` beside the map ([`record_used`]), so later runs
//! and `verify` translate those trees without being told again.

use std::path::{Path, PathBuf};

use super::error::{ExportError, ExportRefusal};
use super::plan::UsedGitlink;
use crate::gitlink_maps::external_map::ExternalMap;
use crate::gitlink_maps::recorded::{origin, read_recorded, write_recorded};
use crate::hash::ObjectId;
use crate::repo::dest_layout;
use crate::verify::GitlinkPair;

/// Every known gitlink pair, as (SHA-256, SHA-1). A SHA-256 name paired
/// with two SHA-1 names is refused: the way back must be one name.
pub fn gitlink_pairs(dest: &Path, maps: &[PathBuf]) -> Result<Vec<GitlinkPair>, ExportError> {
    let recorded = dest_layout::gitlinks(dest);
    let mut files: Vec<PathBuf> = Vec::with_capacity(maps.len() + 1);
    if recorded.is_file() {
        files.push(recorded);
    }
    files.extend(maps.iter().cloned());
    let external = ExternalMap::load(&files).map_err(ExportError::GitlinkMaps)?;
    let mut pairs: Vec<GitlinkPair> = external
        .pairs()
        .filter_map(|pair| match pair {
            (ObjectId::Sha1(sha1), ObjectId::Sha256(sha256)) => Some((sha256, sha1)),
            _ => None,
        })
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    if let Some(w) = pairs.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(ExportRefusal::ContradictingGitlinkMaps {
            sha256: ObjectId::Sha256(w[0].0),
            sha1s: [ObjectId::Sha1(w[0].1), ObjectId::Sha1(w[1].1)],
        }
        .into());
    }
    Ok(pairs)
}

/// Adds the pairs of `used` that `rehash/gitlinks.txt` lacks to it.
pub fn record_used(dest: &Path, used: &[UsedGitlink]) -> Result<(), ExportError> {
    let path = dest_layout::gitlinks(dest);
    let failed = ExportError::GitlinkMaps;
    let mut recorded = read_recorded(&path).map_err(failed)?;
    let before = recorded.len();
    for gitlink in used {
        let from = if gitlink.surrogate {
            origin::SHA1_SURROGATE
        } else {
            origin::SUBMODULE_MAP
        };
        recorded
            .entry(gitlink.sha1.to_hex())
            .or_insert_with(|| (gitlink.target.to_hex(), from.to_string()));
    }
    if recorded.len() != before {
        write_recorded(&path, &recorded).map_err(failed)?;
    }
    Ok(())
}
