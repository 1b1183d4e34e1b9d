//! When a batch of the scan that is still going on makes what it recorded
//! so far durable.
//!
//! A batch is whole delta trees, and one delta tree can be seconds of
//! work: thousands of versions of one large file, each hashed twice. A
//! kill before the batch ends would lose all of it, so about once a
//! second the records taken so far are appended to the checkpoint too. A
//! resumed run still walks that batch's trees (the bodies of the objects
//! after the cut are rebuilt on their bases), but checks and records only
//! the objects without a record, and hashing is most of the work.
//!
//! Only one thread claims each flush, and deciding costs a clock read and
//! a load of a shared word that is written once a second: a counter
//! written by every object would be a contended cache line.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// How often the records of batches still going on are made durable.
const EVERY_MS: u64 = 1000;

pub struct FlushClock {
    start: Instant,
    /// Milliseconds from `start` at which the next flush is due.
    due_ms: AtomicU64,
    /// The test hook's cadence: every this many objects instead.
    every_objects: Option<u64>,
    seen: AtomicU64,
}

impl FlushClock {
    pub fn new(every_objects: Option<u32>) -> Self {
        FlushClock {
            start: Instant::now(),
            due_ms: AtomicU64::new(EVERY_MS),
            every_objects: every_objects.map(u64::from),
            seen: AtomicU64::new(0),
        }
    }

    /// Called once an object was recorded: whether the caller is the one
    /// to flush now.
    pub fn claim(&self) -> bool {
        if let Some(n) = self.every_objects {
            return (self.seen.fetch_add(1, Ordering::Relaxed) + 1).is_multiple_of(n);
        }
        let now = self.start.elapsed().as_millis() as u64;
        let due = self.due_ms.load(Ordering::Relaxed);
        now >= due
            && self
                .due_ms
                .compare_exchange(due, now + EVERY_MS, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_cadence_claims_every_nth_object_once() {
        let clock = FlushClock::new(Some(3));
        let claims: Vec<bool> = (0..7).map(|_| clock.claim()).collect();
        assert_eq!(claims, [false, false, true, false, false, true, false]);
    }

    #[test]
    fn the_clock_claims_nothing_before_a_second_and_once_after() {
        let clock = FlushClock::new(None);
        assert!(!clock.claim(), "not due at the start");
        clock.due_ms.store(0, Ordering::Relaxed);
        assert!(clock.claim());
        assert!(!clock.claim(), "the next is a second later");
    }
}
