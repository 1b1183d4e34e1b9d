#![no_main]
//! `cargo +nightly fuzz run object_id_hex`: see git_rehash::fuzzing::object_id_hex.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| git_rehash::fuzzing::object_id_hex(data));
