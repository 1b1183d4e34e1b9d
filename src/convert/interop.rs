//! The conversion's hooks for fitting into the git world (issue 8): gitlinks
//! named through submodule maps or surrogates, the record of those pairs
//! next to the map, and git's own compat map. Called from
//! [`super::convert`] at two points: after the scan and before publishing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::compat_map;
use super::dest::{CONFIG, rehash_dir, write_atomically};
use super::external_map::{ExternalMap, PairOrigin};
use super::scan::UnmappedGitlink;
use super::table::ObjectTable;
use super::{ConvertError, ConvertOptions};
use crate::hash::ObjectId;
use crate::idmap::{IdMap, map_path};

/// What to do with a gitlink whose submodule commit no map knows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnmappedGitlinks {
    /// Stop before writing anything, listing each submodule path (default).
    #[default]
    Refuse,
    /// Lossy: name it with a deterministic surrogate, recorded as such.
    Placeholder,
}

/// What the interop hooks did.
#[derive(Debug, Default, Clone)]
pub struct InteropOutcome {
    /// Distinct gitlink targets named through submodule maps.
    pub gitlinks_mapped: usize,
    /// Distinct gitlink targets given a surrogate name.
    pub gitlink_surrogates: usize,
    /// Lines written to `objects/loose-object-idx` (`--git-compat-map`).
    pub compat_map_pairs: Option<u64>,
}

/// The distinct SHA-1 targets of every gitlink SOURCE's trees hold.
#[derive(Debug, Default)]
pub struct GitlinkTargets(Vec<ObjectId>);

/// After the scan: names gitlink targets through `--submodule-map` files
/// and, with `--unmapped-gitlinks=placeholder`, surrogates. `unmapped` keeps
/// only the gitlinks still without a name (the caller refuses those).
pub fn resolve_gitlinks(
    opts: &ConvertOptions,
    table: &mut ObjectTable,
    unmapped: &mut Vec<UnmappedGitlink>,
) -> Result<GitlinkTargets, ConvertError> {
    let targets: BTreeSet<ObjectId> = unmapped.iter().map(|g| g.target).collect();
    let mut external = ExternalMap::load(&opts.submodule_maps)?;
    unmapped.retain(|g| external.get(&g.target).is_none());
    if opts.unmapped_gitlinks == UnmappedGitlinks::Placeholder {
        external.add_surrogates(unmapped.iter().map(|g| g.target));
        unmapped.clear();
    }
    table.set_external(external);
    Ok(GitlinkTargets(targets.into_iter().collect()))
}

/// Before publishing: records the gitlink pairs (`rehash/gitlinks.txt`,
/// map meta), writes git's compat map when asked, and returns the config
/// text to publish.
pub fn before_publish(
    opts: &ConvertOptions,
    dest: &Path,
    table: &ObjectTable,
    targets: &GitlinkTargets,
    outcome: &mut InteropOutcome,
) -> Result<String, ConvertError> {
    let mut pairs = Vec::new();
    let mut text = String::from(
        "# git-rehash gitlink pairs: <sha1> <sha256> <origin: submodule-map | surrogate>\n",
    );
    for id in &targets.0 {
        let Some((sha256, origin)) = table.external().entry(id) else {
            continue; // refused earlier; unreachable in a finished run
        };
        match origin {
            PairOrigin::SubmoduleMap => outcome.gitlinks_mapped += 1,
            PairOrigin::Surrogate => outcome.gitlink_surrogates += 1,
        }
        text.push_str(&format!("{id} {sha256} {}\n", origin.as_str()));
        pairs.push((*id, sha256));
    }
    if !pairs.is_empty() {
        write_atomically(&gitlinks_path(dest), text.as_bytes())?;
        let map = IdMap::open_rw(&map_path(dest))?;
        map.set_meta("gitlinks_mapped", &outcome.gitlinks_mapped.to_string())?;
        map.set_meta(
            "gitlink_surrogates",
            &outcome.gitlink_surrogates.to_string(),
        )?;
    }
    if opts.git_compat_map {
        let n = compat_map::write_loose_object_idx(dest, table, &pairs)?;
        outcome.compat_map_pairs = Some(n);
        Ok(compat_map::config_with_compat(CONFIG))
    } else {
        Ok(CONFIG.to_string())
    }
}

/// `DEST/rehash/gitlinks.txt`.
pub fn gitlinks_path(dest: &Path) -> PathBuf {
    rehash_dir(dest).join("gitlinks.txt")
}
