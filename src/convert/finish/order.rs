//! SOURCE's storage order for the objects of DEST, found by SHA-256 name:
//! the folded pack follows the order git chose for SOURCE's packs (commits
//! first, then the trees and blobs of each in recency order), which keeps
//! what is read together close together.

use rayon::prelude::*;

use crate::convert::objects::table::ObjectTable;
use crate::hash::{ObjectId, PrefixBuckets};

/// The table's objects by the first 8 bytes of their SHA-256 names, under
/// [`PrefixBuckets`]: about 20 bytes an object, while the pack is folded.
pub struct StorageOrder<'t> {
    table: &'t ObjectTable,
    by_name: Vec<(u64, u32)>,
    buckets: PrefixBuckets,
}

impl<'t> StorageOrder<'t> {
    pub fn new(table: &'t ObjectTable) -> Self {
        let mut by_name: Vec<(u64, u32)> = table
            .indices()
            .filter_map(|i| table.sha256(i).map(|id| (id.leading_u64(), i)))
            .collect();
        by_name.par_sort_unstable();
        let prefixes: Vec<u64> = by_name.iter().map(|&(p, _)| p).collect();
        StorageOrder {
            table,
            buckets: PrefixBuckets::new(&prefixes),
            by_name,
        }
    }

    /// The storage-order key of the object named `id`; objects SOURCE no
    /// longer has come last, with the loose ones.
    pub fn key(&self, id: &ObjectId) -> u64 {
        let p = id.leading_u64();
        self.by_name[self.buckets.range(p)]
            .iter()
            .filter(|&&(q, _)| q == p)
            .find(|&&(_, i)| self.table.sha256(i).as_ref() == Some(id))
            .map_or(u64::MAX, |&(_, i)| self.table.storage_order(i))
    }
}
