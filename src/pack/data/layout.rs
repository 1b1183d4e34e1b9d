//! Where a source pack's entries are: by offset, so an entry's extent and a
//! delta's base can be found without decoding anything.

use super::entry::EntryKind;
use super::resolve::Pack;
use crate::hash::ObjectId;
use crate::pack::error::PackError;

/// A pack's entries by offset: (offset, position in the idx), sorted, so a
/// delta's base offset can be turned into the base's name.
pub struct PackLayout<'p> {
    by_offset: &'p [(u64, u32)],
    data_end: u64,
}

impl<'p> PackLayout<'p> {
    /// The layout of `pack`, over its shared entry order (made by the
    /// pack checks, or here on a run whose scan did not need it).
    pub fn new(pack: &'p Pack) -> Result<Self, PackError> {
        Ok(PackLayout {
            by_offset: pack.entries_by_offset()?,
            data_end: pack.data.data_end() as u64,
        })
    }

    /// The idx position and the end of the entry starting at `offset` (one
    /// search here, where looking the position up by name in the idx would
    /// be a second, over the mapped file).
    pub fn entry(&self, offset: u64) -> Option<(u32, u64)> {
        let i = self.by_offset.partition_point(|&(o, _)| o <= offset);
        let &(start, position) = self.by_offset.get(i.checked_sub(1)?)?;
        let end = self.by_offset.get(i).map_or(self.data_end, |&(o, _)| o);
        (start == offset).then_some((position, end))
    }

    /// The SHA-1 name of the object an entry is a delta against, if it is one.
    pub fn delta_base(&self, pack: &Pack, kind: &EntryKind) -> Option<ObjectId> {
        match kind {
            EntryKind::Base(_) => None,
            EntryKind::OfsDelta { base_offset } => {
                self.entry(*base_offset).map(|(i, _)| pack.idx.oid_at(i))
            }
            EntryKind::RefDelta { base_id } => Some(*base_id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_found_only_at_its_start() {
        // Sorted by offset; the idx positions follow name order instead.
        let layout = PackLayout {
            by_offset: &[(12, 2), (40, 0), (100, 1)],
            data_end: 150,
        };
        assert_eq!(layout.entry(12), Some((2, 40)));
        assert_eq!(layout.entry(40), Some((0, 100)));
        assert_eq!(
            layout.entry(100),
            Some((1, 150)),
            "the last ends at the trailer"
        );
        for inside in [0, 11, 13, 99, 101, 150, 1 << 40] {
            assert_eq!(layout.entry(inside), None, "offset {inside}");
        }
    }
}
