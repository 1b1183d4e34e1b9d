//! After the scan: the DEST names of gitlink targets (submodule commits,
//! which SOURCE does not store), from `--submodule-map` files, the record
//! of a SOURCE that is itself a git-rehash DEST (`rehash/gitlinks.txt`),
//! and, with `--unmapped-gitlinks=placeholder`, surrogates.

use std::collections::BTreeSet;

use crate::convert::context::Run;
use crate::convert::error::ConvertError;
use crate::convert::error::findings::UnmappedGitlink;
use crate::convert::source_objects::table::ObjectTable;
use crate::gitlink_maps::UnmappedGitlinks;
use crate::gitlink_maps::external_map::ExternalMap;
use crate::hash::ObjectId;

/// The distinct targets (SOURCE names) of every gitlink SOURCE's trees hold.
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
    run: &Run<'_>,
    table: &mut ObjectTable,
    unmapped: &mut Vec<UnmappedGitlink>,
) -> Result<GitlinkTargets, ConvertError> {
    let opts = run.opts;
    let targets: BTreeSet<ObjectId> = unmapped.iter().map(|g| g.target).collect();
    let mut files = opts.submodule_maps.clone();
    files.extend(run.source_map.and_then(|m| m.gitlinks()));
    let mut external = ExternalMap::load(&files)?;
    unmapped.retain(|g| external.get(&g.target).is_none());
    if opts.unmapped_gitlinks == UnmappedGitlinks::Placeholder {
        external.add_surrogates(unmapped.iter().map(|g| g.target));
        unmapped.clear();
    }
    table.set_external(external);
    Ok(GitlinkTargets(targets.into_iter().collect()))
}
