//! `convert --timings`: wall and CPU time of every phase, printed at the
//! end, so a slow run can be read without a profiler (which phase, and
//! whether it used every core); `convert --json` reports the same times.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use git_rehash::progress::Progress;

/// CPU time (user + system) of this process so far.
fn process_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The name [`PhaseTimings::phases`] gives the whole run, after the phases.
pub const WHOLE_RUN: &str = "whole run";

/// The wall and CPU time one phase took.
#[derive(Clone, Copy, Debug)]
pub struct PhaseTime {
    pub phase: &'static str,
    pub wall: Duration,
    pub cpu: Duration,
}

struct Open {
    phase: &'static str,
    wall: Instant,
    cpu: Duration,
}

/// Wraps another progress sink and times the phases it is told about.
pub struct PhaseTimings<'a> {
    inner: &'a dyn Progress,
    started: Instant,
    open: Mutex<Option<Open>>,
    done: Mutex<Vec<PhaseTime>>,
}

impl<'a> PhaseTimings<'a> {
    pub fn new(inner: &'a dyn Progress) -> Self {
        PhaseTimings {
            inner,
            started: Instant::now(),
            open: Mutex::new(None),
            done: Mutex::new(Vec::new()),
        }
    }

    fn close(&self) {
        if let Some(open) = self.open.lock().expect("timings lock").take() {
            self.done.lock().expect("timings lock").push(PhaseTime {
                phase: open.phase,
                wall: open.wall.elapsed(),
                cpu: process_cpu().saturating_sub(open.cpu),
            });
        }
    }

    /// Every phase so far, in order, then the whole run (whose time
    /// outside named phases is start-up, checks and waiting on fsync).
    pub fn phases(&self) -> Vec<PhaseTime> {
        self.close();
        let mut out = self.done.lock().expect("timings lock").clone();
        out.push(PhaseTime {
            phase: WHOLE_RUN,
            wall: self.started.elapsed(),
            cpu: process_cpu(),
        });
        out
    }

    /// The table of [`PhaseTimings::phases`]: wall and CPU time, and the
    /// cores kept busy (CPU / wall).
    pub fn report(&self) -> String {
        let mut out = format!(
            "{:<34} {:>9} {:>9} {:>6}\n",
            "phase", "wall s", "CPU s", "cores"
        );
        for time in self.phases() {
            let (w, c) = (time.wall.as_secs_f64(), time.cpu.as_secs_f64());
            out += &format!(
                "{:<34} {w:>9.2} {c:>9.2} {:>6.2}\n",
                time.phase,
                c / w.max(1e-9)
            );
        }
        out
    }
}

impl PhaseTimings<'_> {
    fn open(&self, phase: &'static str) {
        self.close();
        *self.open.lock().expect("timings lock") = Some(Open {
            phase,
            wall: Instant::now(),
            cpu: process_cpu(),
        });
    }
}

impl Progress for PhaseTimings<'_> {
    fn start(&self, phase: &'static str, total: Option<u64>) {
        self.open(phase);
        self.inner.start(phase, total);
    }

    fn start_bytes(&self, phase: &'static str, total: Option<u64>) {
        self.open(phase);
        self.inner.start_bytes(phase, total);
    }

    fn advance(&self, n: u64) {
        self.inner.advance(n);
    }

    fn finish(&self) {
        self.close();
        self.inner.finish();
    }
}
