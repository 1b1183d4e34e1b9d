//! What both write passes read: SOURCE's objects and where their packs'
//! entries are, the object table, and how to store what they write.

use super::delta_policy::DeltaOptions;
use crate::convert::objects::inventory::Inventory;
use crate::convert::objects::table::ObjectTable;
use crate::pack::PackLayout;
use crate::progress::Progress;
use crate::translate::TranslateOptions;

/// One write pass's view of the run.
pub struct Pass<'a> {
    pub inventory: &'a Inventory,
    /// Each source pack's entries by offset, in inventory order.
    pub layouts: &'a [PackLayout<'a>],
    pub table: &'a ObjectTable,
    pub translate: TranslateOptions,
    /// zlib level for what is compressed anew.
    pub level: u32,
    pub deltas: DeltaOptions,
    pub progress: &'a dyn Progress,
}
