//! Which object is diffed against which: the sliding-window search of
//! `git pack-objects` (`window.rs`), the resemblance sketches that pick a
//! wide window's candidates (`sketch.rs`), and the name hashes objects are
//! sorted by (`name_hash.rs`).

pub(crate) mod name_hash;
pub(crate) mod sketch;
pub(crate) mod window;
