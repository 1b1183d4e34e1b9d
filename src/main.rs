//! The `git-rehash` binary: parses arguments, runs a subcommand, prints the
//! error chain. Exit codes: 0 success, 1 a failed operation (or, for
//! `map`, ids not found), 2 usage errors, 130 interrupted.

use std::process::ExitCode;

fn main() -> ExitCode {
    git_rehash::cli::main()
}
