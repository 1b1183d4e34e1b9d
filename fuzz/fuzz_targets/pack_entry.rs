#![no_main]
//! `cargo +nightly fuzz run pack_entry`: see git_rehash::fuzzing::pack_entry.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| git_rehash::fuzzing::pack_entry(data));
