//! The exit status of every subcommand: five classes, one meaning each,
//! the same for every command, so that a job runner retries only what a
//! retry can finish (3 and 130). `--json` reports the same class, and the
//! manual's EXIT STATUS section is written from [`ExitClass::ALL`].

use std::process::ExitCode;

use git_rehash::attest::AttestError;
use git_rehash::convert::ConvertError;
use git_rehash::export::ExportError;
use git_rehash::idmap::{BadId, IdMapError};
use git_rehash::pipeline::ErrorKind;
use git_rehash::repo::SourceError;
use git_rehash::verify::VerifyError;

/// How a command ended, as its exit status says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitClass {
    /// It did what was asked.
    Done,
    /// The repository needs a decision first; running the command again as
    /// it is gives the same answer.
    Refused,
    /// The command line is wrong; nothing was written.
    Usage,
    /// The machine failed; running the command again may succeed.
    Failed,
    /// Stopped by a signal at a checkpoint; running it again resumes.
    Interrupted,
}

impl ExitClass {
    pub const ALL: [ExitClass; 5] = [
        ExitClass::Done,
        ExitClass::Refused,
        ExitClass::Usage,
        ExitClass::Failed,
        ExitClass::Interrupted,
    ];

    pub fn code(self) -> u8 {
        match self {
            ExitClass::Done => 0,
            ExitClass::Refused => 1,
            ExitClass::Usage => 2,
            ExitClass::Failed => 3,
            // 128 + SIGINT, as a shell reports a run Ctrl-C stopped.
            ExitClass::Interrupted => 130,
        }
    }

    pub fn exit_code(self) -> ExitCode {
        ExitCode::from(self.code())
    }

    /// The class's name, the `status` of a `--json` report (convert's
    /// `done` is `converted` or `updated`).
    pub fn name(self) -> &'static str {
        match self {
            ExitClass::Done => "done",
            ExitClass::Refused => "refused",
            ExitClass::Usage => "usage",
            ExitClass::Failed => "failed",
            ExitClass::Interrupted => "interrupted",
        }
    }

    /// What the status means and what to do about it, for the manual and
    /// `--help`.
    pub fn meaning(self) -> &'static str {
        match self {
            ExitClass::Done => {
                "Done: DEST (convert, repack) or MIRROR (export-sha1) is complete, verify found \
                 no problem, map found every id."
            }
            ExitClass::Refused => {
                "Refused: the repository needs a decision first (submodule commits without a map, \
                 mergetags naming objects the repository lacks, missing or corrupt objects, a DEST \
                 with history of its own, both sides of an export moved); verify found a problem; \
                 map did not find an id. The message names the objects and the option or command \
                 that gets past it; running the same command again gives the same answer."
            }
            ExitClass::Usage => {
                "Usage: the command line is wrong: an unknown option or a bad value, a SOURCE that \
                 does not exist or is not a SHA-1 repository, a DEST that is not this \
                 conversion's or cannot be created, a repository git-rehash did not make given to \
                 repack, verify, export-sha1 or map. Nothing was written; fix the command."
            }
            ExitClass::Failed => {
                "Failed: the machine failed (a full disk, an I/O error, the map database, a lock \
                 another git-rehash holds). Fix the cause and run the same command again: it \
                 resumes where it stopped."
            }
            ExitClass::Interrupted => {
                "Interrupted: SIGINT or SIGTERM stopped it at a checkpoint; everything done so \
                 far is kept. Run the same command again to resume. (A run killed outright, by SIGKILL \
                 or the OOM killer, ends with 128 plus the signal's number and resumes the \
                 same way.)"
            }
        }
    }

    /// The class of a library error's kind.
    pub fn of_kind(kind: ErrorKind) -> ExitClass {
        match kind {
            ErrorKind::Refused | ErrorKind::Corrupt | ErrorKind::DestState => ExitClass::Refused,
            ErrorKind::Usage => ExitClass::Usage,
            ErrorKind::Failed => ExitClass::Failed,
            ErrorKind::Interrupted => ExitClass::Interrupted,
        }
    }

    /// The class of an error a subcommand returned: that of the first
    /// error of its chain that knows its kind; other I/O is a failure.
    pub fn of_error(err: &anyhow::Error) -> ExitClass {
        for cause in err.chain() {
            let kind = if let Some(e) = cause.downcast_ref::<ConvertError>() {
                e.kind()
            } else if let Some(e) = cause.downcast_ref::<ExportError>() {
                e.kind()
            } else if let Some(e) = cause.downcast_ref::<VerifyError>() {
                e.kind()
            } else if let Some(e) = cause.downcast_ref::<SourceError>() {
                e.kind()
            } else if let Some(e) = cause.downcast_ref::<IdMapError>() {
                e.kind()
            } else if let Some(e) = cause.downcast_ref::<AttestError>() {
                e.kind()
            } else if cause.is::<UsageError>() || cause.is::<BadId>() {
                ErrorKind::Usage
            } else {
                continue;
            };
            return ExitClass::of_kind(kind);
        }
        ExitClass::Failed
    }
}

/// The word `--json` reports for a library error's kind (`error.kind`).
pub fn kind_word(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Refused => "refused",
        ErrorKind::Corrupt => "corrupt",
        ErrorKind::DestState => "dest_state",
        ErrorKind::Usage => "usage",
        ErrorKind::Failed => "failed",
        ErrorKind::Interrupted => "interrupted",
    }
}

/// A mistake in the command line that clap cannot see (a combination of
/// options, a path that names nothing of ours).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);
