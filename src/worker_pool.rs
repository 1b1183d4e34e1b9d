//! The rayon pool a run works in: `--jobs` threads (all cores when not
//! given), named so that a profile or /proc tells its workers from the
//! helper threads.

/// A pool of `jobs` threads (at least one; all cores for `None`), named
/// `<name>-<n>`.
pub fn worker_pool(jobs: Option<usize>, name: &'static str) -> std::io::Result<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new().thread_name(move |i| format!("{name}-{i}"));
    if let Some(jobs) = jobs {
        builder = builder.num_threads(jobs.max(1));
    }
    builder.build().map_err(std::io::Error::other)
}
