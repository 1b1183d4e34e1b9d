#![no_main]
//! `cargo +nightly fuzz run delta`: see git_rehash::fuzzing::delta.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| git_rehash::fuzzing::delta(data));
