//! The options of a run that change DEST's object names or its pack,
//! recorded in the map at the end of every run, for the statement
//! `git-rehash attest` signs (attest/run_record.rs; docs/verify.md lists
//! them). The thread count, the progress and benchmark outputs and the
//! ref backend change neither, and are not recorded. A ref selection
//! (the one DEST records, `resume/selection.rs`) is, as `ref_selection`,
//! when there is one: it decides which objects DEST holds.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::attest::RunRecord;
use crate::convert::options::{ConvertOptions, UnmappedMergetags};
use crate::gitlink_maps::UnmappedGitlinks;
use crate::idmap::{IdMap, IdMapError};

/// Records this run's tool and options in `map`.
pub fn record(map: &IdMap, opts: &ConvertOptions) -> Result<(), IdMapError> {
    // A later run that names no pool keeps the one recorded, and so the
    // selection.
    let shared = map.shared_with()?.is_some();
    let selection = map.ref_selection()?;
    let mut options = statement_options(opts, shared);
    if let Some(selection) = selection {
        let value = serde_json::to_value(&selection).expect("a ref selection always serialises");
        options.insert("ref_selection".to_string(), value);
    }
    RunRecord::this_tool(options).save(map)
}

fn statement_options(opts: &ConvertOptions, shared: bool) -> BTreeMap<String, Value> {
    let options = [
        ("compression", json!(opts.compression)),
        ("window", json!(opts.window)),
        ("depth", json!(opts.depth)),
        ("reuse_deltas", json!(opts.reuse_deltas)),
        ("try_every_base", json!(opts.try_every_base)),
        ("name_hash_version", json!(opts.name_hash_version as u8)),
        ("strict_headers", json!(opts.strict_headers)),
        (
            "unmapped_gitlinks",
            json!(match opts.unmapped_gitlinks {
                UnmappedGitlinks::Refuse => "refuse",
                UnmappedGitlinks::Placeholder => "placeholder",
            }),
        ),
        (
            "unmapped_mergetags",
            json!(match opts.unmapped_mergetags {
                UnmappedMergetags::Refuse => "refuse",
                UnmappedMergetags::Verbatim => "verbatim",
            }),
        ),
        ("rekey_notes", json!(opts.rekey_notes)),
        // Which pool is a path of this machine; that there is one changes
        // the pack (the pool's objects are not in it).
        ("shared_with_pool", json!(shared)),
    ];
    options
        .into_iter()
        .map(|(key, value)| (key.to_string(), value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_recorded_by_name() {
        let options = statement_options(&ConvertOptions::new("s", "d"), false);
        assert_eq!(options["window"], json!(ConvertOptions::DEFAULT_WINDOW));
        assert_eq!(options["name_hash_version"], json!(2));
        assert_eq!(options["unmapped_gitlinks"], json!("refuse"));
        assert_eq!(options["shared_with_pool"], json!(false));
        assert!(!options.contains_key("jobs"));
    }
}
