//! The run's output as sequences of packs ("segments"), each committed to
//! the map database with the rows of its objects: the unit of
//! checkpointing.

pub mod commits;
pub mod writer;
