//! What a ref's object peels to, read from SOURCE, for the `^` lines of
//! DEST's `packed-refs` (or the peeled value of its reftable record).
//!
//! The table knows every scanned object's kind, so only annotated tags
//! are read (a few hundred in a large repository); an object of an
//! earlier run, whose kind the table does not hold, is read to learn it.

use crate::convert::source_objects::inventory::Inventory;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::ObjectId;
use crate::object::{ObjectKind, peel_tags};
use crate::refs::Peeled;

/// What SOURCE's object `id` peels to.
pub fn peel(inventory: &Inventory, table: &ObjectTable, id: &ObjectId) -> Peeled {
    let known = table.find(id).and_then(|at| table.kind(at));
    if known.is_some_and(|kind| kind != ObjectKind::Tag) {
        return Peeled::NotATag;
    }
    match peel_tags(id, |object| inventory.read_external(table, object)) {
        Some(object) if object == *id => Peeled::NotATag,
        Some(object) => Peeled::To(object),
        None => Peeled::Unknown,
    }
}
