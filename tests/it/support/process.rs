//! Child processes fed on stdin, and their output as text.

use std::io::{self, Write};
use std::process::{Command, Output, Stdio};

/// Runs `cmd` with `input` on its stdin; returns its output and whether
/// all of `input` was written. The input is written from a thread so that
/// a child which writes much before it reads cannot deadlock against us.
pub fn output_with_stdin(cmd: &mut Command, input: &[u8]) -> (Output, io::Result<()>) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", cmd.get_program()));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("wait for the child");
    (out, feeder.join().expect("stdin feeder thread"))
}

/// [`output_with_stdin`] for a command that may exit before it reads
/// stdin (a query given on the command line never reads it): the write
/// then meets a closed pipe, which is not an error; any other is.
pub fn output_with_unread_stdin(cmd: &mut Command, input: &[u8]) -> Output {
    let (out, written) = output_with_stdin(cmd, input);
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        written => written.expect("write the child's stdin"),
    }
    out
}

/// The child's stdout, which must be UTF-8.
pub fn stdout_text(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 output")
}
