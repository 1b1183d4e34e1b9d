//! `convert --timings`: wall and CPU time of every phase, printed at the
//! end, so a slow run can be read without a profiler (which phase, and
//! whether it used every core).

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
    done: Mutex<Vec<(&'static str, Duration, Duration)>>,
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
            self.done.lock().expect("timings lock").push((
                open.phase,
                open.wall.elapsed(),
                process_cpu().saturating_sub(open.cpu),
            ));
        }
    }

    /// The table: one line per phase, then the whole run (whose time
    /// outside named phases is start-up, checks and waiting on fsync).
    pub fn report(&self) -> String {
        self.close();
        let mut out = format!(
            "{:<34} {:>9} {:>9} {:>6}\n",
            "phase", "wall s", "CPU s", "cores"
        );
        let line = |name: &str, wall: Duration, cpu: Duration| {
            let (w, c) = (wall.as_secs_f64(), cpu.as_secs_f64());
            format!("{name:<34} {w:>9.2} {c:>9.2} {:>6.2}\n", c / w.max(1e-9))
        };
        for &(phase, wall, cpu) in self.done.lock().expect("timings lock").iter() {
            out += &line(phase, wall, cpu);
        }
        out += &line("whole run", self.started.elapsed(), process_cpu());
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
