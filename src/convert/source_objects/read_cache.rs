//! The per-thread cache of inflated objects that every pass reads through
//! (`Inventory::read` keeps delta bases and recent objects in it).
//!
//! One cache per worker thread, shared by the scan, the blob pass and the
//! map pass (they run one after the other), sized from one total budget
//! divided by the number of threads: memory stays the same whether the
//! conversion runs on 2 cores or 64, and each thread still keeps enough to
//! hold the bases of the delta chains it is walking.
//!
//! The total follows the repository's object count (up to a ceiling): what
//! a conversion holds stays proportional to the objects it converts, so a
//! small repository does not pay for a cache sized for linux.git.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::convert::error::ConvertError;
use crate::convert::source_objects::inventory::Inventory;
use crate::convert::source_objects::table::ObjectTable;
use crate::object::ObjectKind;
use crate::pack::DeltaCache;

/// Inflated bytes all threads together keep, per object of the source.
pub const CACHE_BYTES_PER_OBJECT: u64 = 128;
/// Bounds on the total, whatever the object count: the floor keeps tiny
/// repositories' chains cached, the ceiling (reached at ~2M objects) keeps
/// a 10M-object conversion's cache at a fraction of its object state.
const MIN_TOTAL_CACHE: usize = 8 << 20;
const MAX_TOTAL_CACHE: usize = 256 << 20;
/// Each thread's share is kept within these bounds: below the floor, delta
/// chains are walked from the top again and again; the ceiling keeps a
/// single-thread run from holding more than it can use.
const MIN_THREAD_CACHE: usize = 4 << 20;
const MAX_THREAD_CACHE: usize = 128 << 20;

/// The total of the conversion running in this process (see [`size_for`]).
static TOTAL_CACHE_BYTES: AtomicUsize = AtomicUsize::new(MAX_TOTAL_CACHE);

thread_local! {
    static CACHE: RefCell<DeltaCache> = RefCell::new(DeltaCache::new(current_thread_budget()));
}

/// Sizes the caches for a source of `objects` objects, before its scan.
pub fn size_for(objects: u64) {
    TOTAL_CACHE_BYTES.store(total_budget(objects), Ordering::Relaxed);
}

/// The total cache for a source of `objects` objects.
pub fn total_budget(objects: u64) -> usize {
    usize::try_from(objects.saturating_mul(CACHE_BYTES_PER_OBJECT))
        .unwrap_or(usize::MAX)
        .clamp(MIN_TOTAL_CACHE, MAX_TOTAL_CACHE)
}

/// One thread's share of `total` with `threads` workers.
pub fn thread_budget(total: usize, threads: usize) -> usize {
    (total / threads.max(1)).clamp(MIN_THREAD_CACHE, MAX_THREAD_CACHE)
}

fn current_thread_budget() -> usize {
    thread_budget(
        TOTAL_CACHE_BYTES.load(Ordering::Relaxed),
        rayon::current_num_threads(),
    )
}

/// Reads object `at` into `body` through this thread's cache.
pub fn read(
    inventory: &Inventory,
    table: &ObjectTable,
    at: u32,
    body: &mut Vec<u8>,
) -> Result<ObjectKind, ConvertError> {
    CACHE.with_borrow_mut(|cache| read_through(inventory, table, at, cache, body))
}

/// `f` of the body of object `at`: from this thread's cache where it is
/// held (say, the delta base of the object just read), without a copy;
/// else read into a buffer of its own. `f` must not read through the
/// cache itself.
pub fn with_body<R>(
    inventory: &Inventory,
    table: &ObjectTable,
    at: u32,
    f: impl FnOnce(&[u8]) -> R,
) -> Result<R, ConvertError> {
    CACHE.with_borrow_mut(|cache| {
        if let Some(body) = inventory.cached(table, at, cache) {
            return Ok(f(body));
        }
        let mut body = Vec::new();
        read_through(inventory, table, at, cache, &mut body)?;
        Ok(f(&body))
    })
}

/// [`read`] with this thread's cache in hand.
fn read_through(
    inventory: &Inventory,
    table: &ObjectTable,
    at: u32,
    cache: &mut DeltaCache,
    body: &mut Vec<u8>,
) -> Result<ObjectKind, ConvertError> {
    // A thread outlives a conversion (tests run several in one process).
    let budget = current_thread_budget();
    if cache.budget() != budget {
        cache.set_budget(budget);
    }
    inventory.read(table, at, cache, body)
}

/// Empties every worker's cache and the calling thread's, once the passes
/// that read through them are done, and hands the freed memory back to
/// the system: the bodies were freed in the arenas of the threads that
/// cached them, where glibc keeps them resident, so the end of a run
/// (the map's index build, the refs) would otherwise add its memory on
/// top of up to 256 MiB nobody reads any more. Call inside the
/// conversion's thread pool.
pub fn release_all() {
    rayon::broadcast(|_| CACHE.with_borrow_mut(DeltaCache::release));
    CACHE.with_borrow_mut(DeltaCache::release);
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's
    // arenas to the system; it takes the arenas' locks itself.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_follows_the_object_count_within_bounds() {
        assert_eq!(total_budget(0), MIN_TOTAL_CACHE);
        assert_eq!(total_budget(500_000), 500_000 * 128);
        assert_eq!(total_budget(10_000_000), MAX_TOTAL_CACHE);
        assert_eq!(total_budget(u64::MAX), MAX_TOTAL_CACHE);
    }

    #[test]
    fn the_total_stays_bounded_whatever_the_thread_count() {
        let total = MAX_TOTAL_CACHE;
        assert_eq!(thread_budget(total, 1), MAX_THREAD_CACHE);
        assert_eq!(thread_budget(total, 2) * 2, total);
        // Many threads: each keeps the floor, so the total grows only
        // linearly from a small base (64 threads: 256 MiB).
        assert_eq!(thread_budget(total, 64), MIN_THREAD_CACHE);
        assert!(thread_budget(total, 16) * 16 <= total);
    }
}
