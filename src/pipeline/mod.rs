//! What both pipelines (`convert` and `export-sha1`) run on: the stop
//! points of a run (the interrupt flag its caller passes in, and the test
//! hooks that kill or pause it) and the cutting of work into chunks that
//! a resumed run restarts from.

pub mod chunking;
mod interrupted;
pub mod stop_points;

pub use interrupted::Interrupted;
pub use stop_points::StopPoints;
