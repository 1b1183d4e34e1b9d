//! Refs after a conversion: every ref, HEAD and reflog names the
//! translated object, and replace refs still replace.

mod read_back;
mod replace;
