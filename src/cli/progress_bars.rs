//! indicatif bars for the library's progress callbacks. Drawn only when
//! stderr is a terminal (indicatif hides itself otherwise).

use std::sync::Mutex;
use std::time::Duration;

use std::fmt::Write;

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use git_rehash::progress::Progress;

pub struct Bars {
    current: Mutex<Option<ProgressBar>>,
}

impl Bars {
    pub fn new() -> Self {
        Bars {
            current: Mutex::new(None),
        }
    }
}

/// What a bar counts.
#[derive(Clone, Copy)]
enum Unit {
    Items,
    Bytes,
}

impl Bars {
    fn show(&self, phase: &'static str, total: Option<u64>, unit: Unit) {
        let template = match (total, unit) {
            (Some(_), Unit::Items) => {
                "{msg:>34} [{bar:30}] {human_pos}/{human_len} {rate} eta {eta}"
            }
            (Some(_), Unit::Bytes) => {
                "{msg:>34} [{bar:30}] {binary_bytes}/{binary_total_bytes} {rate} eta {eta}"
            }
            (None, _) => "{msg:>34} {spinner}",
        };
        let style = ProgressStyle::with_template(template)
            .expect("static template is valid")
            .progress_chars("=> ")
            // indicatif's own rates print fractions (`30,494.5714/s`):
            // whole items, or MiB, per second read better.
            .with_key("rate", move |state: &ProgressState, w: &mut dyn Write| {
                let per_sec = state.per_sec();
                let _ = match unit {
                    Unit::Items => write!(w, "{}/s", HumanCount(per_sec as u64)),
                    Unit::Bytes => write!(w, "{} MiB/s", (per_sec / (1 << 20) as f64) as u64),
                };
            });
        let bar =
            ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr()).with_style(style);
        bar.set_message(phase);
        bar.enable_steady_tick(Duration::from_millis(200));
        if let Some(old) = self.current.lock().expect("progress lock").replace(bar) {
            old.finish_and_clear();
        }
    }
}

impl Progress for Bars {
    fn start(&self, phase: &'static str, total: Option<u64>) {
        self.show(phase, total, Unit::Items)
    }

    fn start_bytes(&self, phase: &'static str, total: Option<u64>) {
        self.show(phase, total, Unit::Bytes)
    }

    fn advance(&self, n: u64) {
        if let Some(bar) = &*self.current.lock().expect("progress lock") {
            bar.inc(n);
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.current.lock().expect("progress lock").take() {
            bar.finish_and_clear();
        }
    }
}
