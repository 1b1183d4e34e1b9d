//! The statement part of `git-rehash verify`: with `--attestation`, every
//! signed statement of DEST is checked and DEST must be what the newest
//! one says (each difference is an error naming the ref, the map or the
//! pack); without it, a DEST that has statements is only compared with
//! the newest, and a change is a note.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use git_rehash::attest::{CheckOptions, Checked, SourceStatement, Subject, check, object_format};
use git_rehash::hash::HashKind;
use git_rehash::repo::dest_layout;

/// Whether `verify --attestation` checks the repository at `dest` for its
/// statements alone: a SHA-1 repository without a map of its own is a
/// MIRROR `export-sha1` wrote (its objects are paired by DEST's map); a
/// conversion's DEST, SHA-256 or SHA-1, has its map in `rehash/`.
pub fn statement_only(dest: &Path) -> anyhow::Result<bool> {
    Ok(object_format(dest)? == HashKind::Sha1 && !dest_layout::map_db(dest).is_file())
}

/// What was found of DEST's statements.
pub struct Verdict {
    /// `--attestation`: differences and bad statements are errors.
    strict: bool,
    repo: PathBuf,
    found: Result<Checked, String>,
}

impl Verdict {
    /// Checks the statements of `subject`.
    pub fn check(subject: &Subject, strict: bool, allowed_signers: Option<PathBuf>) -> Self {
        let opts = CheckOptions {
            signatures: strict,
            allowed_signers,
        };
        Verdict {
            strict,
            repo: subject.git_dir.clone(),
            found: check(subject, &opts).map_err(|e| format!("{:#}", anyhow::Error::new(e))),
        }
    }

    /// Writes the errors, warnings and notes to `out`; returns how many
    /// errors.
    pub fn print(&self, out: &mut dyn Write) -> std::io::Result<u64> {
        let repo = self.repo.display();
        let (error, warning) = if self.strict {
            ("error", "error")
        } else {
            ("warning", "warning")
        };
        let checked = match &self.found {
            Ok(checked) => checked,
            Err(e) => {
                writeln!(
                    out,
                    "{warning}: attestation: the statements cannot be checked: {e}"
                )?;
                return Ok(u64::from(self.strict));
            }
        };
        let Some(tag) = checked.tag else {
            if self.strict {
                writeln!(
                    out,
                    "error: attestation: {repo} has no statement (refs/rehash/attestation); \
                     make one with `git-rehash attest {repo}`"
                )?;
                return Ok(1);
            }
            return Ok(0);
        };
        let mut errors = 0;
        for problem in &checked.problems {
            writeln!(out, "{warning}: attestation: {problem}")?;
            errors += 1;
        }
        if self.strict {
            for change in &checked.changes {
                writeln!(out, "{error}: attestation: {change}")?;
                errors += 1;
            }
        }
        if !checked.changes.is_empty() {
            writeln!(
                out,
                "{}: {repo} has changed since its last statement (tag {tag}) in {} way(s){}; \
                 `git-rehash attest {repo}` states what it is now",
                if self.strict { "error" } else { "note" },
                checked.changes.len(),
                if self.strict {
                    " listed above"
                } else {
                    ", which `verify --attestation` lists"
                },
            )?;
        } else if self.strict && errors == 0 {
            writeln!(
                out,
                "note: attestation: refs/rehash/attestation (tag {tag}, {} statement(s)): every \
                 signature verifies ({}), and {repo} is what the newest one says",
                checked.statements,
                checked.signer.as_deref().unwrap_or("signed"),
            )?;
        } else if !self.strict {
            writeln!(
                out,
                "note: {repo} is what its statement (tag {tag}) says; --attestation checks its \
                 signature too"
            )?;
        }
        Ok(if self.strict { errors } else { 0 })
    }
}

/// `verify --attestation` of a repository `verify` does not check
/// otherwise (not a conversion's DEST: a MIRROR `export-sha1 --attest`
/// wrote, whose map is DEST's, named with `--map`).
pub fn run_statement_only(
    repo: &Path,
    map: Option<&Path>,
    allowed_signers: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let subject = match map {
        Some(map) => Subject::mirror(repo, map, None, SourceStatement::Unknown)?,
        None => Subject::conversion(repo, None)?,
    };
    let verdict = Verdict::check(&subject, true, allowed_signers);
    let out = &mut std::io::stdout().lock();
    let errors = verdict.print(out)?;
    writeln!(
        out,
        "{}: the statements of {} ({} repository; its objects are not checked here), {} problem(s)",
        if errors == 0 { "ok" } else { "FAILED" },
        repo.display(),
        subject.format.name(),
        errors
    )?;
    Ok(if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
