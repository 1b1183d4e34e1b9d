//! How a refused conversion must end: a message a user can act on, and
//! nothing that looks like a result.

use std::path::Path;
use std::process::Output;

/// The exit status of each class (the manual's EXIT STATUS).
pub const REFUSED: i32 = 1;
pub const USAGE: i32 = 2;
pub const FAILED: i32 = 3;

/// Exit status 1 (refused), one `git-rehash: error:` message mentioning
/// `mentions`, no panic, no backtrace hint. Returns stderr.
pub fn assert_clean_failure(out: &Output, mentions: &[&str]) -> String {
    assert_clean_exit(out, REFUSED, mentions)
}

/// [`assert_clean_failure`] with exit status `status`.
pub fn assert_clean_exit(out: &Output, status: i32, mentions: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(status),
        "exit status; stderr: {stderr}"
    );
    assert!(stderr.starts_with("git-rehash: error: "), "{stderr}");
    for m in mentions {
        assert!(stderr.contains(m), "error should mention {m:?}:\n{stderr}");
    }
    for bad in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        assert!(!stderr.contains(bad), "{bad} reached the user:\n{stderr}");
    }
    stderr
}

/// [`assert_clean_failure`], and DEST has neither `config` nor `HEAD`, so
/// git does not take it for a repository.
pub fn assert_refused_cleanly(out: &Output, dest: &Path, mentions: &[&str]) -> String {
    let stderr = assert_clean_failure(out, mentions);
    for file in ["config", "HEAD"] {
        assert!(
            !dest.join(file).exists(),
            "a refused DEST must not look like a repository ({file} exists)"
        );
    }
    stderr
}
