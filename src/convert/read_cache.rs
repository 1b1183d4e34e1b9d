//! The per-thread cache of inflated objects that every pass reads through
//! (`Inventory::read` keeps delta bases and recent objects in it).
//!
//! One cache per worker thread, shared by the scan, the blob pass and the
//! map pass (they run one after the other), sized from one total budget
//! divided by the number of threads: memory stays the same whether the
//! conversion runs on 2 cores or 64, and each thread still keeps enough to
//! hold the bases of the delta chains it is walking.

use std::cell::RefCell;

use super::ConvertError;
use super::inventory::Inventory;
use super::table::ObjectTable;
use crate::object::ObjectKind;
use crate::pack::DeltaCache;

/// Inflated bytes all threads together keep for reuse.
pub const TOTAL_CACHE_BYTES: usize = 128 << 20;
/// Each thread's share is kept within these bounds: below the floor, delta
/// chains are walked from the top again and again; the ceiling keeps a
/// single-thread run from holding more than it can use.
const MIN_THREAD_CACHE: usize = 16 << 20;
const MAX_THREAD_CACHE: usize = 64 << 20;

thread_local! {
    static CACHE: RefCell<DeltaCache> = RefCell::new(DeltaCache::new(thread_budget(
        rayon::current_num_threads(),
    )));
}

/// One thread's share of [`TOTAL_CACHE_BYTES`] with `threads` workers.
pub fn thread_budget(threads: usize) -> usize {
    (TOTAL_CACHE_BYTES / threads.max(1)).clamp(MIN_THREAD_CACHE, MAX_THREAD_CACHE)
}

/// Reads object `at` into `body` through this thread's cache.
pub fn read(
    inventory: &Inventory,
    table: &ObjectTable,
    at: u32,
    body: &mut Vec<u8>,
) -> Result<ObjectKind, ConvertError> {
    CACHE.with_borrow_mut(|cache| inventory.read(table, at, cache, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_stays_bounded_whatever_the_thread_count() {
        assert_eq!(thread_budget(1), MAX_THREAD_CACHE);
        assert_eq!(thread_budget(2) * 2, TOTAL_CACHE_BYTES);
        // Many threads: each keeps the floor, so the total grows only
        // linearly from a small base (16 threads: 256 MiB).
        assert_eq!(thread_budget(64), MIN_THREAD_CACHE);
        assert!(thread_budget(16) * 16 <= 2 * TOTAL_CACHE_BYTES);
    }
}
