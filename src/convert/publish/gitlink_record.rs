//! Before publishing: the gitlink pairs DEST's trees were translated with
//! recorded beside the map (`rehash/gitlinks.txt`, map meta, SHA-1 first
//! whichever way the conversion goes), git's compat map written when
//! asked, and the `[extensions]` DEST's config gets for it.

use std::path::Path;

use super::compat_map;
use crate::convert::error::ConvertError;
use crate::convert::options::ConvertOptions;
use crate::convert::outcome::InteropOutcome;
use crate::convert::plan::gitlink_names::GitlinkTargets;
use crate::convert::source_objects::table::ObjectTable;
use crate::gitlink_maps::external_map::PairOrigin;
use crate::gitlink_maps::recorded::{read_recorded, write_recorded};
use crate::hash::{HashKind, ObjectId};
use crate::idmap::IdMap;
use crate::repo::dest_layout;

/// Before publishing: records the gitlink pairs (`rehash/gitlinks.txt`,
/// map meta), writes git's compat map when asked, and returns the lines
/// DEST's config gets under `[extensions]` for it.
pub fn before_publish(
    opts: &ConvertOptions,
    dest: &Path,
    table: &ObjectTable,
    targets: &GitlinkTargets,
    outcome: &mut InteropOutcome,
) -> Result<Vec<String>, ConvertError> {
    let direction = table.direction();
    let path = dest_layout::gitlinks(dest);
    // An incremental run scans only new trees: the pairs earlier runs used
    // are still named by the trees they wrote, so the record keeps them.
    let mut recorded = read_recorded(&path)?;
    let mut pairs = Vec::new();
    for id in targets.ids() {
        let Some((mapped, origin)) = table.external().entry(id) else {
            continue; // refused earlier; unreachable in a finished run
        };
        let (sha1, sha256) = direction.columns(*id, mapped);
        match origin {
            PairOrigin::SubmoduleMap => outcome.gitlinks_mapped += 1,
            PairOrigin::Surrogate | PairOrigin::Sha1Surrogate => outcome.gitlink_surrogates += 1,
        }
        recorded
            .entry(sha1.to_hex())
            .or_insert_with(|| (sha256.to_hex(), origin.as_str().to_string()));
    }
    if !recorded.is_empty() {
        let mut surrogates = 0;
        for (sha1, (sha256, origin)) in &recorded {
            let stand_in = [PairOrigin::Surrogate, PairOrigin::Sha1Surrogate];
            surrogates += usize::from(stand_in.iter().any(|s| origin == s.as_str()));
            if let (Some(a), Some(b)) = (
                ObjectId::from_hex(HashKind::Sha1, sha1.as_bytes()),
                ObjectId::from_hex(HashKind::Sha256, sha256.as_bytes()),
            ) {
                // SOURCE's name first.
                pairs.push(direction.split(a, b));
            }
        }
        write_recorded(&path, &recorded)?;
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
        Ok(vec![compat_map::extension(direction.source())])
    } else {
        Ok(Vec::new())
    }
}
