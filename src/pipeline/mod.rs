//! What both pipelines (`convert` and `export-sha1`) run on: the stop
//! points of a run (the interrupt flag its caller passes in, and the test
//! hooks that kill or pause it) and the cutting of work into chunks that
//! a resumed run restarts from; and the kinds of stop every library
//! error answers with.

pub mod chunking;
mod error_kind;
mod interrupted;
pub mod stop_points;

pub use error_kind::ErrorKind;
pub use interrupted::Interrupted;
pub use stop_points::StopPoints;
