//! The integration tests of git-rehash, in one test binary whose modules
//! follow the library's layout (`convert/`, `pack/`, `refs/`, ...), plus
//! the hostile-input suites, the fuzz entry points and self-tests of the
//! fixtures. Real git is the oracle throughout, and the tests run the real
//! binary; the shared helpers are in `support/`.
//!
//! Run one part with a filter: `cargo test --test it hostile::pack::`.

mod attest;
mod cli;
mod convert;
mod export;
mod fixtures_selftest;
mod fuzz_smoke;
mod hostile;
mod loose;
mod map;
mod pack;
mod refs;
mod support;
mod textmap;
mod verify;
