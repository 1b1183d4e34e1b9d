//! The reach records of the map pass (`convert/reach_record.rs`) as the
//! bitmap's graph wants them: by the new pack's idx positions. An object
//! without a record (made after the map pass, or translated by a run whose
//! records were lost) is read from the pack instead; a blob of the table
//! needs neither.

use std::fs::File;
use std::path::Path;

use memmap2::Mmap;
use rayon::prelude::*;

use crate::convert::error::ConvertError;
use crate::convert::reach_record::{checked_records, records};
use crate::convert::source_objects::by_dest_name::ByDestName;
use crate::convert::source_objects::table::ObjectTable;
use crate::object::ObjectKind;
use crate::pack::Pack;

const NONE: u32 = u32::MAX;
const NO_RECORD: u64 = u64::MAX;

/// The records, mapped, with the table rows of the pack's entries.
pub struct KnownEdges<'t> {
    table: &'t ObjectTable,
    /// Empty when the file is.
    records: Option<Mmap>,
    /// Offset of each table object's record in `records`.
    record_of: Vec<u64>,
    /// Table index of each idx position of the pack; `NONE` if not in the table.
    table_of_index: Vec<u32>,
    /// Pack position (by offset, the bitmap's bit) of each table object;
    /// `NONE` if not in the pack.
    position_of_table: Vec<u32>,
}

impl<'t> KnownEdges<'t> {
    /// Reads the records at `path` for `pack` (its entries `by_offset`),
    /// whose objects `names` finds in the table.
    pub fn open(
        path: &Path,
        names: &ByDestName<'t>,
        pack: &Pack,
        by_offset: &[(u64, u32)],
    ) -> Result<Self, ConvertError> {
        let table = names.table();
        let file = File::open(path).map_err(|e| ConvertError::io(path, e))?;
        let len = file
            .metadata()
            .map_err(|e| ConvertError::io(path, e))?
            .len();
        // SAFETY: the file is this run's scratch file, which nothing
        // else writes while it is mapped.
        let mapped = match len {
            0 => None,
            _ => Some(unsafe { Mmap::map(&file) }.map_err(|e| ConvertError::io(path, e))?),
        };
        let mut record_of = vec![NO_RECORD; table.len()];
        if let Some(file) = &mapped {
            let read = checked_records(file).ok_or_else(|| {
                let why = "a checksum does not match: the disk changed it after it was written";
                ConvertError::io(
                    path,
                    std::io::Error::new(std::io::ErrorKind::InvalidData, why),
                )
            })?;
            // An object translated by an interrupted run and again by
            // this one has the same record twice.
            for (offset, record) in read {
                if let Some(slot) = record_of.get_mut(record.at as usize) {
                    *slot = offset as u64;
                }
            }
        }
        let table_of_index: Vec<u32> = (0..pack.idx.num_objects())
            .into_par_iter()
            .map(|i| names.find(&pack.idx.oid_at(i)).unwrap_or(NONE))
            .collect();
        let mut position_of_table = vec![NONE; table.len()];
        for (position, &(_, index)) in by_offset.iter().enumerate() {
            let t = table_of_index[index as usize];
            if t != NONE {
                position_of_table[t as usize] = position as u32;
            }
        }
        Ok(KnownEdges {
            table,
            records: mapped,
            record_of,
            table_of_index,
            position_of_table,
        })
    }

    /// What the graph asks (`pack::reach::Known`): the kind, committer
    /// time and children (pack positions) of the object at idx position
    /// `index`.
    pub fn node(&self, index: u32, children: &mut Vec<u32>) -> Option<(ObjectKind, i64)> {
        let at = *self.table_of_index.get(index as usize)?;
        if at == NONE {
            return None;
        }
        let offset = self.record_of[at as usize];
        if offset == NO_RECORD {
            return (self.table.kind(at) == Some(ObjectKind::Blob))
                .then_some((ObjectKind::Blob, 0));
        }
        let bytes = &self.records.as_ref()?[offset as usize..];
        let (_, record) = records(bytes).next()?;
        for child in record.children() {
            match self.position_of_table.get(child as usize) {
                Some(&i) if i != NONE => children.push(i),
                // Not in the pack: the read from the pack says so.
                _ => return None,
            }
        }
        Some((record.kind, record.time))
    }
}
