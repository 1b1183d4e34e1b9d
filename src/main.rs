//! The `git-rehash` binary: parses arguments, runs a subcommand, prints the
//! error chain. The exit status is the run's class (`cli/exit_class.rs`):
//! 0 done, 1 refused, 2 usage, 3 failed, 130 interrupted.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    fix_malloc_mmap_threshold();
    cli::main()
}

/// glibc serves blocks above its mmap threshold with `mmap` (returned to
/// the system on `free`), but raises the threshold to the size of each such
/// block freed, up to 32 MiB: after the scan's large buffers come and go,
/// blocks of up to that size are carved from the heap and stay resident
/// after they are freed. A fixed 4 MiB threshold keeps the big ones out of
/// the heap, while the many object bodies below it still reuse heap memory
/// (500k objects: peak anonymous RSS 214-229 -> 199-207 MiB; 256 KiB gave
/// 182-193 MiB but more system time in page faults).
fn fix_malloc_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of the allocator; called before
    // any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}
