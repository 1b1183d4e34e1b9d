//! The ref selection a conversion records in its map's `meta` (key
//! [`REF_SELECTION`]; the selection as JSON, empty when DEST holds every
//! object SOURCE held): which refs DEST carries, and so which objects it
//! holds. Later conversions keep it; `export-sha1` and `verify` read it.

use super::error::IdMapError;
use super::store::IdMap;
use crate::refs::RefSelection;

/// The `meta` key of the selection.
pub const REF_SELECTION: &str = "ref_selection";

impl IdMap {
    /// The recorded selection; `None`: every object (or none recorded).
    pub fn ref_selection(&self) -> Result<Option<RefSelection>, IdMapError> {
        Ok(self
            .meta(REF_SELECTION)?
            .filter(|text| !text.is_empty())
            .and_then(|text| RefSelection::from_record(&text)))
    }

    /// Records `selection` (`None`: every object).
    pub fn set_ref_selection(&self, selection: Option<&RefSelection>) -> Result<(), IdMapError> {
        let text = selection.map(RefSelection::to_record).unwrap_or_default();
        self.set_meta(REF_SELECTION, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selection_reads_back_and_none_is_every_object() {
        let dir = tempfile::tempdir().unwrap();
        let map = IdMap::open_rw(&dir.path().join("map.sqlite")).unwrap();
        assert_eq!(map.ref_selection().unwrap(), None);
        let selection = RefSelection {
            refs: Vec::new(),
            exclude: vec!["refs/pull/*".parse().unwrap()],
        };
        map.set_ref_selection(Some(&selection)).unwrap();
        assert_eq!(map.ref_selection().unwrap(), Some(selection));
        map.set_ref_selection(None).unwrap();
        assert_eq!(map.ref_selection().unwrap(), None);
    }
}
