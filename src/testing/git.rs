//! The installed git, for unit tests that build real repositories: one
//! hermetic environment (no system or user config, fixed identities and
//! dates), so the same commands make the same objects every time.

use std::path::Path;
use std::process::Command;

/// Runs git in `dir` and returns its trimmed standard output; panics with
/// git's error output when it fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    run(git_command(dir).args(args))
}

/// Runs `cmd` (made by [`git_command`]) as [`git`] runs git.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("git runs");
    assert!(
        out.status.success(),
        "git {:?} failed: {}",
        cmd.get_args().collect::<Vec<_>>(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// git in `dir` with the hermetic environment, for a caller that adds
/// arguments, environment or input of its own.
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "A")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "C")
        .env("GIT_COMMITTER_EMAIL", "c@example.com")
        .env("GIT_AUTHOR_DATE", "1700000000 +0000")
        .env("GIT_COMMITTER_DATE", "1700000000 +0000");
    cmd
}
