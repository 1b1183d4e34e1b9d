//! Running git for what git alone should do here: sign a tag with the
//! user's signing setup (`git tag -s`), check a signature
//! (`git verify-tag`), read a tag (`git cat-file`), and move a ref under
//! git's locks in whichever ref backend the repository keeps
//! (`git update-ref`). The rest of git-rehash runs no git program.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::AttestError;

/// Variables that would point git at another repository or object store
/// than the one named with `--git-dir`.
const REDIRECTING: [&str; 7] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
];

/// git run on one repository, with the caller's environment (its signing
/// setup, agents and identity) and a few `-c` settings.
pub struct Git {
    git_dir: PathBuf,
    config: Vec<String>,
}

impl Git {
    pub fn new(git_dir: &Path) -> Self {
        Git {
            git_dir: git_dir.to_path_buf(),
            config: Vec::new(),
        }
    }

    /// Adds `-c key=value` to every command.
    pub fn with_config(mut self, key: &str, value: &str) -> Self {
        self.config.push(format!("{key}={value}"));
        self
    }

    fn command<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        let mut cmd = Command::new("git");
        for var in REDIRECTING {
            cmd.env_remove(var);
        }
        cmd.arg("--git-dir").arg(&self.git_dir);
        for setting in &self.config {
            cmd.arg("-c").arg(setting);
        }
        cmd.args(args);
        cmd
    }

    /// How a command reads in messages.
    fn describe<S: AsRef<OsStr>>(&self, args: &[S]) -> String {
        let mut text = format!("git --git-dir {}", self.git_dir.display());
        for arg in args {
            text.push(' ');
            text.push_str(&arg.as_ref().to_string_lossy());
        }
        text
    }

    /// Runs git; its output whatever its exit status.
    pub fn output<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<Output, AttestError> {
        self.command(args).output().map_err(AttestError::NoGit)
    }

    /// Runs git, which must succeed; its stdout.
    pub fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<Vec<u8>, AttestError> {
        let out = self.output(args)?;
        if out.status.success() {
            return Ok(out.stdout);
        }
        Err(AttestError::Git {
            command: self.describe(args),
            status: out.status.to_string(),
            stderr: stderr_text(&out),
        })
    }

    /// Runs `git tag -s ...`; a failure is a signing error, with git's
    /// reason.
    pub fn sign<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<(), AttestError> {
        let out = self.output(args)?;
        if out.status.success() {
            return Ok(());
        }
        Err(AttestError::Signing {
            command: self.describe(args),
            status: out.status.to_string(),
            stderr: stderr_text(&out),
        })
    }
}

/// git's stderr, trimmed, for a message.
pub fn stderr_text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).trim_end().to_string()
}
