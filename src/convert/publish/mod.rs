//! The conversion's hooks for fitting into the git world: gitlinks
//! named through submodule maps or surrogates, the record of those pairs
//! next to the map, and git's own compat map. Called from
//! [`crate::convert::convert`] at two points: after the scan and before publishing.

pub mod compat_map;
pub mod notes_tree;
pub mod rekey_notes;
pub mod stale_refs;

use std::collections::BTreeSet;
use std::path::Path;

use crate::convert::ConvertError;
use crate::convert::dest::CONFIG;
use crate::convert::options::ConvertOptions;
use crate::convert::scan::UnmappedGitlink;
use crate::convert::source_objects::table::ObjectTable;
use crate::gitlink_maps::UnmappedGitlinks;
use crate::gitlink_maps::external_map::{ExternalMap, PairOrigin};
use crate::hash::{HashKind, ObjectId};
use crate::idmap::IdMap;
use crate::repo::dest_layout;

/// What the interop hooks did.
#[derive(Debug, Default, Clone)]
pub struct InteropOutcome {
    /// Distinct gitlink targets named through submodule maps.
    pub gitlinks_mapped: usize,
    /// Distinct gitlink targets given a surrogate name.
    pub gitlink_surrogates: usize,
    /// Lines written to `objects/loose-object-idx` (`--git-compat-map`).
    pub compat_map_pairs: Option<u64>,
    /// `--rekey-notes`: each notes ref and its new commit.
    pub notes_rekeyed: Vec<super::RekeyedRef>,
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
    let path = dest_layout::gitlinks(dest);
    // An incremental run scans only new trees: the pairs earlier runs used
    // are still named by the trees they wrote, so the record keeps them.
    let mut recorded = crate::gitlink_maps::recorded::read_recorded(&path)?;
    let mut pairs = Vec::new();
    for id in &targets.0 {
        let Some((sha256, origin)) = table.external().entry(id) else {
            continue; // refused earlier; unreachable in a finished run
        };
        match origin {
            PairOrigin::SubmoduleMap => outcome.gitlinks_mapped += 1,
            PairOrigin::Surrogate => outcome.gitlink_surrogates += 1,
        }
        recorded
            .entry(id.to_hex())
            .or_insert_with(|| (sha256.to_hex(), origin.as_str().to_string()));
    }
    if !recorded.is_empty() {
        let mut surrogates = 0;
        for (sha1, (sha256, origin)) in &recorded {
            surrogates += usize::from(origin == PairOrigin::Surrogate.as_str());
            if let (Some(a), Some(b)) = (
                ObjectId::from_hex(HashKind::Sha1, sha1.as_bytes()),
                ObjectId::from_hex(HashKind::Sha256, sha256.as_bytes()),
            ) {
                pairs.push((a, b));
            }
        }
        crate::gitlink_maps::recorded::write_recorded(&path, &recorded)?;
        let map = IdMap::open_rw(&dest_layout::map_db(dest))?;
        map.set_meta(
            "gitlinks_mapped",
            &(recorded.len() - surrogates).to_string(),
        )?;
        map.set_meta("gitlink_surrogates", &surrogates.to_string())?;
    }
    if opts.git_compat_map {
        let n = compat_map::write_loose_object_idx(dest, table, &pairs)?;
        outcome.compat_map_pairs = Some(n);
        Ok(compat_map::config_with_compat(CONFIG))
    } else {
        Ok(CONFIG.to_string())
    }
}
