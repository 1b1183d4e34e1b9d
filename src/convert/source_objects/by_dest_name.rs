//! The object table by DEST name, once every object is named: the
//! finish step meets DEST's objects by their new names (the folded pack's
//! entries, the bitmap's objects) and needs their table rows.

use std::sync::OnceLock;

use rayon::prelude::*;

use crate::convert::source_objects::table::ObjectTable;
use crate::hash::{ObjectId, PrefixBuckets};

/// The table's named objects by the first 8 bytes of their DEST names,
/// under [`PrefixBuckets`]: about 20 bytes an object. Built on the first
/// lookup, so a run that looks nothing up (nothing to fold, no bitmap to
/// write) pays nothing, and the fold and the bitmap share one.
pub struct ByDestName<'t> {
    table: &'t ObjectTable,
    sorted: OnceLock<Sorted>,
}

struct Sorted {
    by_name: Vec<(u64, u32)>,
    buckets: PrefixBuckets,
}

impl<'t> ByDestName<'t> {
    pub fn new(table: &'t ObjectTable) -> Self {
        ByDestName {
            table,
            sorted: OnceLock::new(),
        }
    }

    pub fn table(&self) -> &'t ObjectTable {
        self.table
    }

    /// The table index of the object named `id`, if the table has it.
    pub fn find(&self, id: &ObjectId) -> Option<u32> {
        let Sorted { by_name, buckets } = self.sorted.get_or_init(|| self.sort());
        let p = id.leading_u64();
        by_name[buckets.range(p)]
            .iter()
            .filter(|&&(q, _)| q == p)
            .find(|&&(_, i)| self.table.dest_id(i).as_ref() == Some(id))
            .map(|&(_, i)| i)
    }

    fn sort(&self) -> Sorted {
        let table = self.table;
        let mut by_name: Vec<(u64, u32)> = table
            .indices()
            .filter_map(|i| table.dest_id(i).map(|id| (id.leading_u64(), i)))
            .collect();
        by_name.par_sort_unstable();
        let prefixes: Vec<u64> = by_name.iter().map(|&(p, _)| p).collect();
        Sorted {
            buckets: PrefixBuckets::new(&prefixes),
            by_name,
        }
    }
}
