//! How a conversion ends for its caller: its exit class, what it means
//! for DEST, and the word `--json` reports for it.

use std::process::ExitCode;

use super::exit_class::ExitClass;
use git_rehash::convert::{ConvertError, ConvertOutcome};

/// Says that a run was interrupted, clears the bars, and gives the exit
/// status of an interruption. `rerun` is the command that resumes it.
pub fn interrupted(bars: Option<&super::progress_bars::Bars>, kept: &str, rerun: &str) -> ExitCode {
    if let Some(bars) = bars {
        git_rehash::progress::Progress::finish(bars);
    }
    eprintln!(
        "git-rehash: interrupted; {kept} is kept. Run the same command again to resume:\n  {rerun}"
    );
    ExitClass::Interrupted.exit_code()
}

/// How a run ended: a finished run says whether it was the first, any
/// other end is its exit class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// A first conversion finished.
    Converted,
    /// An earlier run's DEST was resumed or brought up to date.
    Updated,
    /// Stopped; the class says why.
    Stopped(ExitClass),
}

impl RunEnd {
    pub fn of(result: &Result<ConvertOutcome, ConvertError>) -> RunEnd {
        match result {
            Ok(outcome) if outcome.continued => RunEnd::Updated,
            Ok(_) => RunEnd::Converted,
            Err(e) => RunEnd::Stopped(ExitClass::of_kind(e.kind())),
        }
    }

    /// The word `--json` reports.
    pub fn status(self) -> &'static str {
        match self {
            RunEnd::Converted => "converted",
            RunEnd::Updated => "updated",
            RunEnd::Stopped(class) => class.name(),
        }
    }

    pub fn class(self) -> ExitClass {
        match self {
            RunEnd::Converted | RunEnd::Updated => ExitClass::Done,
            RunEnd::Stopped(class) => class,
        }
    }

    /// What the exit status tells the caller about DEST.
    pub fn exit_meaning(self) -> &'static str {
        match self.class() {
            ExitClass::Done => "DEST is complete",
            ExitClass::Refused => {
                "the conversion was refused: SOURCE or DEST needs a decision, which the error \
                 names with the option or command that gets past it; DEST is not a repository \
                 unless an earlier run completed it"
            }
            ExitClass::Usage => {
                "the command line is wrong (SOURCE, DEST or an option); nothing was written, \
                 and the error says what to change"
            }
            ExitClass::Failed => {
                "the machine failed (disk, memory, I/O, another run's lock); the error names the \
                 cause, and running the same command again resumes"
            }
            ExitClass::Interrupted => {
                "interrupted; everything converted so far is kept, and running the same command again resumes"
            }
        }
    }
}
