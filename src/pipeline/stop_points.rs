//! Where a run (a conversion or an export) may stop: the interrupt flag
//! its caller passes in (set by a Ctrl-C or SIGTERM handler), checked
//! between chunks, and the test hook that aborts the process at a chosen
//! kill point. Each pipeline names its own kill points (its `phase.rs`).
//!
//! `GIT_REHASH_TEST_KILL_AT=<n>` aborts (`std::process::abort`, as abrupt
//! as SIGKILL: no destructor runs, temporary files stay) at the n-th kill
//! point of the run; `GIT_REHASH_TEST_KILL_AT=<phase>:<n>` at the n-th kill
//! point of that phase. `GIT_REHASH_TEST_PAUSE_MS=<ms>` sleeps at every
//! chunk checkpoint, so a test can interrupt a run of a tiny repository
//! while it is busy. `GIT_REHASH_TEST_SEGMENT_OBJECTS=<n>` fixes the number
//! of objects per segment (normally sized to a few seconds of work);
//! `GIT_REHASH_TEST_SCAN_BATCH_OBJECTS=<n>` the objects per checkpointed
//! batch of the scan (normally about a second of work), and
//! `GIT_REHASH_TEST_SCAN_FLUSH_OBJECTS=<n>` makes what a batch still going
//! on recorded durable every n objects (normally every second).
//! These variables are for tests; they never change the result of a run.
//! `GIT_REHASH_TEST_CHUNK_OBJECTS=<n>` caps the objects per parallel chunk
//! of the write passes, so that a tiny repository is written in many
//! chunks (and resumed in the middle of a pass); like any chunk size it
//! changes the deltas the search finds, the same way in every run that
//! sets it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::interrupted::Interrupted;

/// The interrupt flag and the test hooks of one run.
pub struct StopPoints {
    interrupt: Option<Arc<AtomicBool>>,
    kill: Option<(Option<String>, u64)>,
    seen: AtomicU64,
    pause: Option<Duration>,
    pub segment_objects: Option<u32>,
    pub scan_batch_objects: Option<u32>,
    pub scan_flush_objects: Option<u32>,
    pub chunk_objects: Option<usize>,
}

impl StopPoints {
    pub fn new(interrupt: Option<Arc<AtomicBool>>) -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let kill = var("GIT_REHASH_TEST_KILL_AT").and_then(|spec| match spec.rsplit_once(':') {
            Some((phase, n)) => n.parse().ok().map(|n| (Some(phase.to_string()), n)),
            None => spec.parse().ok().map(|n| (None, n)),
        });
        // A hook's count: a number above 0, else unset.
        fn count<T: std::str::FromStr + PartialOrd + Default>(name: &str) -> Option<T> {
            let value = std::env::var(name).ok()?.parse().ok()?;
            (value > T::default()).then_some(value)
        }
        StopPoints {
            interrupt,
            kill,
            seen: AtomicU64::new(0),
            pause: var("GIT_REHASH_TEST_PAUSE_MS")
                .and_then(|ms| ms.parse().ok())
                .map(Duration::from_millis),
            segment_objects: count("GIT_REHASH_TEST_SEGMENT_OBJECTS"),
            scan_batch_objects: count("GIT_REHASH_TEST_SCAN_BATCH_OBJECTS"),
            scan_flush_objects: count("GIT_REHASH_TEST_SCAN_FLUSH_OBJECTS"),
            chunk_objects: count("GIT_REHASH_TEST_CHUNK_OBJECTS"),
        }
    }

    /// A point where the process may die; the test hook kills it here.
    pub fn kill_point(&self, phase: &str) {
        let Some((want, n)) = &self.kill else { return };
        if want.as_deref().is_some_and(|w| w != phase) {
            return;
        }
        if self.seen.fetch_add(1, Ordering::Relaxed) + 1 == *n {
            eprintln!("git-rehash: test hook: killed at {phase} (kill point {n})");
            std::process::abort();
        }
    }

    /// A consistent place to stop: errors with [`Interrupted`] once the
    /// caller set the interrupt flag.
    pub fn check_interrupt(&self) -> Result<(), Interrupted> {
        if let Some(pause) = self.pause {
            std::thread::sleep(pause);
        }
        if self.interrupted() {
            return Err(Interrupted);
        }
        Ok(())
    }

    /// Whether the interrupt flag is set (for checks in hot loops: no pause).
    pub fn interrupted(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}
