//! indicatif bars for the library's progress callbacks. Drawn only when
//! stderr is a terminal (indicatif hides itself otherwise).

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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

impl Progress for Bars {
    fn start(&self, phase: &'static str, total: Option<u64>) {
        let bar = match total {
            Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr())
                .with_style(
                    ProgressStyle::with_template(
                        "{msg:>34} [{bar:30}] {human_pos}/{human_len} {per_sec} eta {eta}",
                    )
                    .expect("static template is valid")
                    .progress_chars("=> "),
                ),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
                ProgressStyle::with_template("{msg:>34} {spinner}")
                    .expect("static template is valid"),
            ),
        };
        bar.set_message(phase);
        bar.enable_steady_tick(Duration::from_millis(200));
        if let Some(old) = self.current.lock().expect("progress lock").replace(bar) {
            old.finish_and_clear();
        }
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
