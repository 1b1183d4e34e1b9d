//! Mergetags whose embedded tag names an object SOURCE does not have: no
//! exact translation of such a tag into DEST's hash exists. Refused with every such
//! commit listed (the scan found them all), or, with
//! `--unmapped-mergetags=verbatim`, the commits are marked in the table so
//! that the map pass keeps those mergetags as they are and the journal
//! records the commits as translated so.

use super::reaching_refs::RefReach;
use crate::convert::error::ConvertError;
use crate::convert::error::{MergetagTarget, Refusal};
use crate::convert::options::UnmappedMergetags;
use crate::convert::scan::UnmappedMergetag;
use crate::convert::source_objects::table::ObjectTable;

/// Refuses `found` (mergetags whose target SOURCE lacks), naming the refs
/// that reach each commit, or marks their commits, by `policy`. A target
/// named through an external pair (a submodule map) translates like any
/// id and is left alone; the commits of `recorded` (the commits SOURCE's
/// own map records as translated with a verbatim mergetag, sorted) are
/// marked whatever the policy: kept so, they translate back exactly.
pub fn settle(
    policy: UnmappedMergetags,
    table: &mut ObjectTable,
    found: &[UnmappedMergetag],
    recorded: &[u32],
    reach: &RefReach<'_>,
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
            let mut listed: Vec<(u32, _)> = unmapped.iter().map(|m| (m.commit, m.target)).collect();
            listed.sort_unstable_by_key(|&(commit, target)| (table.source_id(commit), target));
            listed.dedup();
            let commits: Vec<Vec<u32>> = listed.iter().map(|&(commit, _)| vec![commit]).collect();
            let (reaching, reach) = reach.trace(&commits);
            let mergetags = listed
                .into_iter()
                .zip(reaching)
                .map(|((commit, target), reached_from)| MergetagTarget {
                    commit: table.source_id(commit),
                    target,
                    reached_from,
                })
                .collect();
            Err(Refusal::UnmappedMergetags { mergetags, reach }.into())
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
