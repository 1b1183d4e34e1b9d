#![no_main]
//! `cargo +nightly fuzz run tree`: see git_rehash::fuzzing::tree.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| git_rehash::fuzzing::tree(data));
