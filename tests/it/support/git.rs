//! The real `git`, run with an environment of its own: no system or
//! global config, HOME in the scratch area, C locale, UTC, and a fixed
//! author, committer and clock, so the objects a test makes have the same
//! names on every machine.

use std::path::Path;
use std::process::{Command, Output};

use super::process::output_with_stdin;
use super::scratch::scratch_root;

/// The author and committer date of every commit and tag the tests make.
pub const TEST_DATE: &str = "1700000000 +0000";

/// Makes `cmd` independent of the caller's environment (git-rehash and the
/// fixture scripts spawn git too, so they get the same treatment).
pub fn isolate(cmd: &mut Command) {
    for (key, _) in std::env::vars_os() {
        if key.to_str().is_some_and(|k| k.starts_with("GIT_")) {
            cmd.env_remove(&key);
        }
    }
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", scratch_root().join("home"))
        .env("XDG_CONFIG_HOME", scratch_root().join("home/.config"))
        .env("LC_ALL", "C")
        .env("LANG", "C")
        .env("TZ", "UTC")
        .env("GIT_AUTHOR_NAME", "A U Thor")
        .env("GIT_AUTHOR_EMAIL", "author@example.invalid")
        .env("GIT_AUTHOR_DATE", TEST_DATE)
        .env("GIT_COMMITTER_NAME", "C O Mitter")
        .env("GIT_COMMITTER_EMAIL", "committer@example.invalid")
        .env("GIT_COMMITTER_DATE", TEST_DATE)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat");
}

/// `git -C dir` with the isolated environment; add args and run it yourself.
///
/// git looks for a repository at `dir` and not above it: scratch
/// directories live inside this crate's own checkout, whose repository a
/// command run outside a test repository would otherwise find.
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    isolate(&mut cmd);
    if let Some(parent) = dir.parent().filter(|_| dir.is_absolute()) {
        cmd.env("GIT_CEILING_DIRECTORIES", parent);
    }
    cmd.arg("-C").arg(dir);
    cmd
}

fn describe(dir: &Path, args: &[&str]) -> String {
    format!("git -C {} {}", dir.display(), args.join(" "))
}

/// Panics with the stderr and stdout of `what` unless `out` is a success;
/// returns stdout.
pub fn expect_success(what: &str, out: Output) -> Vec<u8> {
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n--- stderr ---\n{}--- stdout ---\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
    }
    out.stdout
}

/// Runs git in `dir`; panics with its stderr on failure; returns stdout bytes.
pub fn git_bytes(dir: &Path, args: &[&str]) -> Vec<u8> {
    expect_success(&describe(dir, args), git_output(dir, args))
}

/// Like [`git_bytes`], as a string with the trailing newline(s) removed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = String::from_utf8(git_bytes(dir, args)).unwrap_or_else(|_| {
        panic!(
            "{}: output is not UTF-8 (use git_bytes)",
            describe(dir, args)
        )
    });
    out.trim_end_matches('\n').to_owned()
}

/// Runs git in `dir` with `input` on stdin; panics on failure (also when
/// git did not read all of `input`); returns stdout.
pub fn git_with_input(dir: &Path, args: &[&str], input: &[u8]) -> Vec<u8> {
    let (out, written) = output_with_stdin(git_command(dir).args(args), input);
    let stdout = expect_success(&describe(dir, args), out);
    written.unwrap_or_else(|e| panic!("{}: writing its stdin: {e}", describe(dir, args)));
    stdout
}

/// Runs git in `dir` and returns the raw [`Output`] (no panic on failure).
pub fn git_output(dir: &Path, args: &[&str]) -> Output {
    git_command(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run git: {e}"))
}

/// `git fsck --strict` of `repo` must pass.
pub fn assert_fsck(repo: &Path) {
    let fsck = git_output(repo, &["fsck", "--strict", "--no-dangling"]);
    assert!(
        fsck.status.success(),
        "fsck --strict of {}: {}{}",
        repo.display(),
        String::from_utf8_lossy(&fsck.stdout),
        String::from_utf8_lossy(&fsck.stderr)
    );
}
