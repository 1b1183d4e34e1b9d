//! `--json` of export-sha1, repack and verify: one JSON object on one line
//! of stdout at the end of every run, whatever its outcome, a command line
//! that cannot be read included. Its `status` is the run's exit class
//! (`done`, `refused`, `usage`, `failed`, `interrupted`), the same as the
//! exit status; `error` is what stopped it, `result` what the command did.
//! convert's report, with its counts and phases, is json_report.rs.

use std::io::Write;

use serde::Serialize;

use super::exit_class::{ExitClass, kind_word};
use git_rehash::pipeline::ErrorKind;

#[derive(Serialize)]
pub struct CommandReport<R: Serialize> {
    command: String,
    status: &'static str,
    exit_code: u8,
    exit_meaning: &'static str,
    /// What a run that did its work found or wrote; `null` otherwise.
    result: Option<R>,
    /// Why the run stopped; `null` when it did its work or was
    /// interrupted.
    error: Option<ErrorSummary>,
}

#[derive(Serialize)]
pub struct ErrorSummary {
    /// `refused`, `corrupt`, `dest_state`, `usage` or `failed`.
    kind: &'static str,
    /// The message printed on stderr, without its causes.
    message: String,
    causes: Vec<String>,
}

impl ErrorSummary {
    pub fn new(kind: ErrorKind, error: &dyn std::error::Error) -> Self {
        let mut causes = Vec::new();
        let mut cause = error.source();
        while let Some(c) = cause {
            causes.push(c.to_string());
            cause = c.source();
        }
        ErrorSummary {
            kind: kind_word(kind),
            message: error.to_string(),
            causes,
        }
    }
}

impl<R: Serialize> CommandReport<R> {
    /// A run that did its work: `class` is done, or refused for a verify
    /// that found problems.
    pub fn finished(command: &'static str, class: ExitClass, result: R) -> Self {
        Self::new(command, class, Some(result), None)
    }

    /// A run that stopped with `error` of `kind`.
    pub fn stopped(command: &'static str, kind: ErrorKind, error: &dyn std::error::Error) -> Self {
        let class = ExitClass::of_kind(kind);
        let error = (class != ExitClass::Interrupted).then(|| ErrorSummary::new(kind, error));
        Self::new(command, class, None, error)
    }

    fn new(
        command: &str,
        class: ExitClass,
        result: Option<R>,
        error: Option<ErrorSummary>,
    ) -> Self {
        CommandReport {
            command: command.to_string(),
            status: class.name(),
            exit_code: class.code(),
            exit_meaning: class.meaning(),
            result,
            error,
        }
    }

    /// Writes the report as one line on stdout.
    pub fn print(&self) -> std::io::Result<()> {
        let mut stdout = std::io::stdout().lock();
        serde_json::to_writer(&mut stdout, self)?;
        writeln!(stdout)?;
        stdout.flush()
    }
}

impl CommandReport<()> {
    /// The report of a command line clap refused: `message` is its first
    /// line.
    pub fn usage(command: &str, message: String) -> Self {
        let error = ErrorSummary {
            kind: kind_word(ErrorKind::Usage),
            message,
            causes: Vec::new(),
        };
        Self::new(command, ExitClass::Usage, None, Some(error))
    }
}
