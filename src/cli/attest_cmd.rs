//! `git-rehash attest DEST`: a signed statement of the conversion, in
//! DEST as the tag `refs/rehash/attestation` (docs/verify.md); also run
//! by `convert --attest` and `export-sha1 --attest` at the end of a run.
//!
//! Exit status: 0 when DEST's newest statement says what DEST is (a new
//! one was signed, or the one there still did), 1 when none could be made
//! (the message says why; DEST is unchanged), 2 on usage errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use git_rehash::attest::{Attested, Subject, attest};

#[derive(Debug, Args)]
pub struct AttestArgs {
    /// A repository written by `git-rehash convert`.
    dest: PathBuf,
    /// No summary.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub fn run(args: AttestArgs) -> anyhow::Result<ExitCode> {
    let subject = Subject::conversion(&args.dest, None)?;
    let attested = attest(&subject)?;
    if !args.quiet {
        report(&attested, &args.dest);
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the statement of `subject` at the end of a run (`--attest`):
/// a failure says that the run itself is complete.
pub fn attest_after_run(subject: &Subject, quiet: bool, what: &str) -> anyhow::Result<()> {
    match attest(subject) {
        Ok(attested) => {
            if !quiet {
                report(&attested, &subject.git_dir);
            }
            Ok(())
        }
        Err(e) => Err(anyhow::Error::new(e).context(format!(
            "{what} is complete, but its statement could not be made; run `git-rehash attest {}` \
             once the cause is fixed",
            subject.git_dir.display()
        ))),
    }
}

/// The one-line summary.
fn report(attested: &Attested, repo: &Path) {
    let statement = &attested.statement;
    if attested.unchanged {
        eprintln!(
            "attested: {} is as its statement {} says; no new statement",
            repo.display(),
            attested.tag
        );
        return;
    }
    eprintln!(
        "attested: refs/rehash/attestation -> tag {} ({} refs, {} map rows, pack(s) {}{})",
        attested.tag,
        statement.refs.len(),
        statement.map.rows,
        statement.packs.join(", "),
        match &attested.previous {
            Some(previous) => format!("; after statement {previous}"),
            None => String::new(),
        }
    );
}
