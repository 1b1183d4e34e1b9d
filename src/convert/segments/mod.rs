//! The run's output as sequences of packs ("segments"), each committed to
//! the map database with the rows of its objects: the unit of
//! checkpointing. Segments are thin and private; the finish step
//! (`convert/finish/`) folds them into one pack.

pub mod commit_order;
pub mod sequence;
