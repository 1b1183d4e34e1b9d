//! The stop a run makes when its caller sets the interrupt flag (Ctrl-C,
//! SIGTERM): an error of its own, which each pipeline's error wraps, so a
//! caller tells an interruption from a failure whichever pipeline ran.

/// The run stopped at a consistent place because it was asked to; a
/// re-run resumes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;
