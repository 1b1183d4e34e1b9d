//! A reader that hangs up early (`git-rehash map ... | head -1`): the
//! command ends quietly with status 0 instead of complaining about the
//! closed pipe.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Output, Stdio};

use crate::support::rehash::rehash_command;
use crate::support::synthetic_map::big_map;

/// Runs `cmd` with stdout into a reader that takes one line and hangs up.
fn read_one_line_and_close(mut cmd: Command, stdin: Vec<u8>) -> (Output, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        // The command may stop reading once its stdout is gone.
        let _ = input.write_all(&stdin);
    });
    let mut first = String::new();
    {
        let mut out = BufReader::new(child.stdout.take().unwrap());
        out.read_line(&mut first).unwrap();
    }
    let mut stderr = Vec::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    (
        Output {
            status,
            stdout: Vec::new(),
            stderr,
        },
        first,
    )
}

/// Exit status 0 and nothing on stderr.
fn assert_quiet_success(out: &Output) {
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn closed_stdout_ends_quietly_with_status_0() {
    let map = big_map();
    let mut export = rehash_command();
    export.args(["map", "--export", "--map"]).arg(map);
    let (out, first) = read_one_line_and_close(export, Vec::new());
    assert_eq!(first.len(), 40 + 1 + 64 + 1 + 4 + 1, "{first}");
    assert_quiet_success(&out);

    let mut batch = rehash_command();
    batch.args(["map", "--batch", "--map"]).arg(map);
    let input = "zzzz\n".repeat(200_000).into_bytes();
    let (out, first) = read_one_line_and_close(batch, input);
    assert_eq!(first, "zzzz missing\n");
    assert_quiet_success(&out);

    let mut translate = rehash_command();
    translate.args(["translate-text", "--map"]).arg(map);
    let (out, _) = read_one_line_and_close(translate, "line\n".repeat(500_000).into_bytes());
    assert_eq!(out.status.code(), Some(0));
}
