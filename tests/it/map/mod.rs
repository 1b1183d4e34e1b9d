//! `git-rehash map` against a converted fixture (git is the oracle for
//! every pair) and against small synthetic maps whose ids are chosen to sit
//! on prefix boundaries.

mod batch;
mod broken_pipe;
mod concurrency;
mod export;
mod lookup;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, ExitStatus, Output, Stdio};

use crate::support::process::output_with_unread_stdin;
use crate::support::rehash::rehash_command;

/// `git-rehash map --map MAP [args]` with `stdin`, whatever its outcome.
fn map_file(map: &Path, args: &[&str], stdin: &[u8]) -> Output {
    output_with_unread_stdin(
        rehash_command().arg("map").arg("--map").arg(map).args(args),
        stdin,
    )
}

/// `git-rehash map --batch --map MAP [args]` driven as a co-process: one
/// question written, its answer read, before the next.
struct BatchCoprocess {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl BatchCoprocess {
    fn start(map: &Path, args: &[&str]) -> BatchCoprocess {
        let mut child = rehash_command()
            .args(["map", "--batch", "--map"])
            .arg(map)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run git-rehash map --batch");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        BatchCoprocess {
            child,
            input,
            output,
        }
    }

    /// Writes `query` as one line and returns the answer line.
    fn ask(&mut self, query: &str) -> String {
        writeln!(self.input, "{query}").unwrap();
        self.input.flush().unwrap();
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        line
    }

    /// Closes stdin and waits for the exit.
    fn finish(self) -> ExitStatus {
        let BatchCoprocess {
            mut child, input, ..
        } = self;
        drop(input);
        child.wait().unwrap()
    }
}
