//! Folding packs into one: every entry of the input packs copied into a
//! new pack as it is stored (its zlib stream untouched), in an order the
//! caller chooses, with each delta's base written before it, as
//! `pack-objects` writes reused deltas (`write_one` in
//! `builtin/pack-objects.c`).
//!
//! The inputs may be thin: a REF_DELTA may name a base that another input
//! holds. The output is not: every delta becomes an OFS_DELTA against its
//! base's new place. Nothing is inflated, so the cost is reading the inputs
//! and writing the output once (plus its checksum, its `.idx` and `.rev`,
//! and the CRC32 of each input entry, checked against its idx and reused
//! for the output's).
//!
//! The new pack is laid out first, from the entries' sizes alone
//! (`plan.rs`); the bytes are then copied on every core (`copy.rs`).
//!
//! Memory: about 110 bytes an entry (its record, its place and offset in
//! the new pack, its idx entry), whatever the objects' sizes.

pub(crate) mod copy;
pub(crate) mod plan;

use std::path::Path;

use crate::hash::HashKind;
use crate::pack::data::file::PACK_HEADER_LEN;
use crate::pack::data::resolve::Pack;
use crate::pack::data::write::publish::PackOutcome;
use crate::pack::error::PackWriteError;
use crate::progress::Progress;
use copy::{FoldInputs, write_placed};
use plan::{OrderKey, list_entries, order, place};

/// Writes every entry of `packs` (SHA-256 or SHA-1, all of one kind) into
/// one new pack in `dir`, renamed into place with its `.idx` and `.rev`.
/// Objects stored in more than one input are refused (an input set comes
/// from one conversion, which writes each object once).
pub fn fold_packs(
    packs: &[Pack],
    dir: &Path,
    hash: HashKind,
    key: &OrderKey<'_>,
    progress: &dyn Progress,
) -> Result<PackOutcome, PackWriteError> {
    // The phase covers everything from the listing to the renames: the
    // bytes to copy are the inputs' entries, known before they are listed.
    let total: u64 = packs
        .iter()
        .map(|p| (p.data.data_end() as u64).saturating_sub(PACK_HEADER_LEN))
        .sum();
    progress.start_bytes("writing one pack", Some(total));
    let items = list_entries(packs)?;
    let order = order(&items, packs, key)?;
    let placed = place(&items, &order, packs)?;
    drop(order);
    let inputs = FoldInputs {
        packs,
        items: &items,
        placed: &placed,
    };
    let written = write_placed(&inputs, dir, hash, progress);
    progress.finish();
    written
}
