//! After the scan: the SHA-256 names of gitlink targets (submodule
//! commits, which SOURCE does not store), from `--submodule-map` files
//! and, with `--unmapped-gitlinks=placeholder`, surrogates.

use std::collections::BTreeSet;

use crate::convert::error::ConvertError;
use crate::convert::error::findings::UnmappedGitlink;
use crate::convert::options::ConvertOptions;
use crate::convert::source_objects::table::ObjectTable;
use crate::gitlink_maps::UnmappedGitlinks;
use crate::gitlink_maps::external_map::ExternalMap;
use crate::hash::ObjectId;

/// The distinct SHA-1 targets of every gitlink SOURCE's trees hold.
#[derive(Debug, Default)]
pub struct GitlinkTargets(Vec<ObjectId>);

impl GitlinkTargets {
    pub fn ids(&self) -> &[ObjectId] {
        &self.0
    }
}

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
