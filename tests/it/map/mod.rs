//! `git-rehash map` against a converted fixture (git is the oracle for
//! every pair) and against small synthetic maps whose ids are chosen to sit
//! on prefix boundaries.

mod batch;
mod broken_pipe;
mod concurrency;
mod export;
mod lookup;

use std::path::Path;
use std::process::Output;

use crate::support::process::output_with_unread_stdin;
use crate::support::rehash::rehash_command;

/// `git-rehash map --map MAP [args]` with `stdin`, whatever its outcome.
fn map_file(map: &Path, args: &[&str], stdin: &[u8]) -> Output {
    output_with_unread_stdin(
        rehash_command().arg("map").arg("--map").arg(map).args(args),
        stdin,
    )
}
