#![no_main]
//! `cargo +nightly fuzz run commit`: see git_rehash::fuzzing::commit.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| git_rehash::fuzzing::commit(data));
