//! What a statement says of the run that made the repository: the tool's
//! version and the options that change object names or the pack. A
//! conversion records it in its map's `meta` at the end of every run
//! (key [`META_KEY`]), so that `git-rehash attest` run later states the
//! options the repository was really made with.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::idmap::{IdMap, IdMapError};

/// The `meta` key of the record.
pub const META_KEY: &str = "statement_options";

/// The tool and options of the run that made a repository.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// `git-rehash <version>`.
    pub tool: String,
    pub options: BTreeMap<String, serde_json::Value>,
}

impl RunRecord {
    /// This git-rehash with `options`.
    pub fn this_tool(options: BTreeMap<String, serde_json::Value>) -> Self {
        RunRecord {
            tool: concat!("git-rehash ", env!("CARGO_PKG_VERSION")).to_string(),
            options,
        }
    }

    /// Records it in `map`'s `meta`.
    pub fn save(&self, map: &IdMap) -> Result<(), IdMapError> {
        let text = serde_json::to_string(self).expect("a run record always serialises");
        map.set_meta(META_KEY, &text)
    }

    /// The record of `map`: `None` when the map has none (a repository
    /// made before statements existed) or it cannot be read.
    pub fn load(map: &IdMap) -> Result<Option<Self>, IdMapError> {
        Ok(map
            .meta(META_KEY)?
            .and_then(|text| serde_json::from_str(&text).ok()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_from_the_map() {
        let dir = tempfile::tempdir().unwrap();
        let map = IdMap::open_rw(&dir.path().join("map.sqlite")).unwrap();
        assert_eq!(RunRecord::load(&map).unwrap(), None);
        let record = RunRecord::this_tool(BTreeMap::from([(
            "window".to_string(),
            serde_json::json!(250),
        )]));
        record.save(&map).unwrap();
        assert_eq!(RunRecord::load(&map).unwrap(), Some(record));
    }
}
