//! The rayon pool a run works in: `--jobs` threads (all cores when not
//! given or 0, as git's `pack.threads`), named so that a profile or /proc
//! tells its workers from the helper threads.

/// A pool of `jobs` threads (all cores for `None` or `Some(0)`), named
/// `<name>-<n>`.
pub fn worker_pool(jobs: Option<usize>, name: &'static str) -> std::io::Result<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new().thread_name(move |i| format!("{name}-{i}"));
    if let Some(jobs) = jobs.filter(|&n| n > 0) {
        builder = builder.num_threads(jobs);
    }
    builder.build().map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_jobs_is_every_core() {
        // rayon's own default follows RAYON_NUM_THREADS when it is set.
        if std::env::var_os("RAYON_NUM_THREADS").is_some() {
            return;
        }
        let cores = std::thread::available_parallelism().unwrap().get();
        for jobs in [None, Some(0)] {
            let pool = worker_pool(jobs, "test").unwrap();
            assert_eq!(pool.current_num_threads(), cores, "{jobs:?}");
        }
        assert_eq!(
            worker_pool(Some(3), "test").unwrap().current_num_threads(),
            3
        );
    }
}
