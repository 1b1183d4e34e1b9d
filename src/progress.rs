//! How the library reports progress: counts through a callback. Only the
//! CLI draws bars: the library never touches the terminal.

/// Receives phase changes and counts. Called from worker threads.
pub trait Progress: Sync {
    /// A new phase begins; `total` is the expected count, when known.
    fn start(&self, phase: &'static str, total: Option<u64>);
    /// A new phase that counts bytes, not objects, begins; a display shows
    /// it as bytes where it can.
    fn start_bytes(&self, phase: &'static str, total: Option<u64>) {
        self.start(phase, total)
    }
    /// `n` more units of the current phase are done.
    fn advance(&self, n: u64);
    /// The current phase is over.
    fn finish(&self);
}

/// Reports nothing (tests, `--quiet`).
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _phase: &'static str, _total: Option<u64>) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
}
