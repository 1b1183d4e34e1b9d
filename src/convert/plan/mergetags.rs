//! Mergetags whose embedded tag names an object SOURCE does not have: no
//! exact SHA-256 translation of such a tag exists. Refused with every such
//! commit listed (the scan found them all), or, with
//! `--unmapped-mergetags=verbatim`, the commits are marked in the table so
//! that the map pass keeps those mergetags as they are and the journal
//! records the commits as translated so.

use crate::convert::error::ConvertError;
use crate::convert::error::{MergetagTarget, Refusal};
use crate::convert::options::UnmappedMergetags;
use crate::convert::scan::UnmappedMergetag;
use crate::convert::source_objects::table::ObjectTable;

/// Refuses `found` (mergetags whose target SOURCE lacks) or marks their
/// commits, by `policy`. A target named through an external pair (a
/// submodule map) translates like any id and is left alone; the commits of
/// `recorded` (the commits SOURCE's own map records as translated with a
/// verbatim mergetag, sorted) are marked whatever the policy: kept so,
/// they translate back exactly.
pub fn settle(
    policy: UnmappedMergetags,
    table: &mut ObjectTable,
    found: &[UnmappedMergetag],
    recorded: &[u32],
) -> Result<(), ConvertError> {
    let unmapped: Vec<&UnmappedMergetag> = found
        .iter()
        .filter(|m| table.map_source(&m.target).is_none())
        .filter(|m| recorded.binary_search(&m.commit).is_err())
        .collect();
    if unmapped.is_empty() {
        table.set_verbatim_mergetags(recorded.to_vec());
        return Ok(());
    }
    match policy {
        UnmappedMergetags::Refuse => {
            let mut listed: Vec<MergetagTarget> = unmapped
                .iter()
                .map(|m| MergetagTarget {
                    commit: table.source_id(m.commit),
                    target: m.target,
                })
                .collect();
            listed.sort_unstable();
            listed.dedup();
            Err(Refusal::UnmappedMergetags(listed).into())
        }
        UnmappedMergetags::Verbatim => {
            let commits = unmapped
                .iter()
                .map(|m| m.commit)
                .chain(recorded.iter().copied());
            table.set_verbatim_mergetags(commits.collect());
            Ok(())
        }
    }
}
