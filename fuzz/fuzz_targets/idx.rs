#![no_main]
//! `cargo +nightly fuzz run idx`: see git_rehash::fuzzing::idx.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| git_rehash::fuzzing::idx(data));
