#![no_main]
//! `cargo +nightly fuzz run tag`: see git_rehash::fuzzing::tag.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| git_rehash::fuzzing::tag(data));
