//! How a conversion ends for its caller: the exit status of each result,
//! what it means, and the word `--json` reports for it.

use std::process::ExitCode;

use git_rehash::convert::{ConvertError, ConvertOutcome, ErrorKind};

/// Exit status of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT, as a
/// shell reports it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Says that a run was interrupted, clears the bars, and gives the exit
/// status of an interruption. `rerun` is the command that resumes it.
pub fn interrupted(bars: Option<&super::progress_bars::Bars>, kept: &str, rerun: &str) -> ExitCode {
    if let Some(bars) = bars {
        git_rehash::progress::Progress::finish(bars);
    }
    eprintln!(
        "git-rehash: interrupted; {kept} is kept. Run the same command again to resume:\n  {rerun}"
    );
    ExitCode::from(EXIT_INTERRUPTED)
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// A first conversion finished.
    Converted,
    /// An earlier run's DEST was resumed or brought up to date.
    Updated,
    /// SOURCE or DEST cannot be converted or written as they are.
    Refused,
    /// The machine, the disk or the map database failed; a retry may work.
    Failed,
    Interrupted,
}

impl RunEnd {
    pub fn of(result: &Result<ConvertOutcome, ConvertError>) -> RunEnd {
        match result {
            Ok(outcome) if outcome.continued => RunEnd::Updated,
            Ok(_) => RunEnd::Converted,
            Err(e) => match e.kind() {
                ErrorKind::Refused | ErrorKind::Corrupt | ErrorKind::DestState => RunEnd::Refused,
                ErrorKind::Failed => RunEnd::Failed,
                ErrorKind::Interrupted => RunEnd::Interrupted,
            },
        }
    }

    /// The word `--json` reports.
    pub fn status(self) -> &'static str {
        match self {
            RunEnd::Converted => "converted",
            RunEnd::Updated => "updated",
            RunEnd::Refused => "refused",
            RunEnd::Failed => "failed",
            RunEnd::Interrupted => "interrupted",
        }
    }

    pub fn exit_code(self) -> u8 {
        match self {
            RunEnd::Converted | RunEnd::Updated => 0,
            RunEnd::Refused | RunEnd::Failed => 1,
            RunEnd::Interrupted => EXIT_INTERRUPTED,
        }
    }

    /// What the exit status tells the caller about DEST.
    pub fn exit_meaning(self) -> &'static str {
        match self {
            RunEnd::Converted | RunEnd::Updated => "DEST is complete",
            RunEnd::Refused => {
                "the conversion was refused; the error says why and what to do, \
                 and DEST is not a repository unless an earlier run completed it"
            }
            RunEnd::Failed => {
                "the conversion failed; the error names the cause, and running it again resumes"
            }
            RunEnd::Interrupted => {
                "interrupted; everything converted so far is kept, and running the same command again resumes"
            }
        }
    }
}
