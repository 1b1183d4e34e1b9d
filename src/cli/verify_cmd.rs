//! `git-rehash verify <DEST> [--source <SOURCE>] [--attestation]`: re-reads
//! a conversion and checks it, and its signed statements
//! (`verify_statement.rs`); exit status 1 on any mismatch, each named (2
//! when DEST is not a conversion, 3 when reading failed).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::exit_class::ExitClass;
use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Context;
use serde::Serialize;

use super::command_report::CommandReport;
use super::progress_bars::Bars;
use super::verify_statement::{Verdict, run_statement_only, statement_only};
use git_rehash::attest::Subject;
use git_rehash::progress::{NoProgress, Progress};
use git_rehash::verify::{VerifyOptions, VerifyReport, verify};

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A repository written by `git-rehash convert`.
    dest: PathBuf,
    /// The repository it was converted from: also compare refs, check
    /// that every source object is mapped, and check forward the objects
    /// whose inverse translation is not exact.
    #[arg(long)]
    source: Option<PathBuf>,
    /// The map database (default: DEST/rehash/map.sqlite).
    #[arg(long)]
    map: Option<PathBuf>,
    /// Worker threads (default, and 0: all cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// No progress bars; problems and the summary are still printed.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Print one JSON object on stdout at the end, whatever the outcome:
    /// status (the exit class), exit code, the counts and problems, the
    /// error; the text report goes to stderr instead.
    #[arg(long)]
    json: bool,
    /// Also check DEST's signed statements (refs/rehash/attestation):
    /// every signature, through `git verify-tag`, and that DEST's refs,
    /// map and packs are those the newest one names. A SHA-1 repository
    /// with no map of its own (a MIRROR `export-sha1 --attest` wrote) is
    /// checked for its statement only, with --map naming the map that
    /// pairs it.
    #[arg(long)]
    attestation: bool,
    /// The allowed signers file for SSH signatures
    /// (gpg.ssh.allowedSignersFile), instead of git's setting.
    #[arg(long, value_name = "FILE", requires = "attestation")]
    allowed_signers: Option<PathBuf>,
}

/// What `--json` reports of a verification that ran to its end.
#[derive(Serialize)]
struct VerifyResult {
    clean: bool,
    problem_count: u64,
    /// Of `problem_count`: those of DEST's signed statements.
    statement_problems: u64,
    /// The problems found (at most 10 000; `problem_count` counts all).
    problems: Vec<String>,
    objects_by_type: BTreeMap<&'static str, u64>,
    map_rows: u64,
    shared_pool_rows: u64,
    refs_checked: u64,
    source_objects_checked: u64,
    /// SOURCE's objects the conversion's ref selection left out.
    source_objects_left_out: u64,
}

impl VerifyResult {
    fn new(report: &VerifyReport, statement_problems: u64) -> Self {
        VerifyResult {
            clean: report.is_clean() && statement_problems == 0,
            problem_count: report.problem_count + statement_problems,
            statement_problems,
            problems: report.problems.iter().map(ToString::to_string).collect(),
            objects_by_type: report
                .objects
                .iter()
                .map(|(kind, n)| (kind.as_str(), *n))
                .collect(),
            map_rows: report.map_rows,
            shared_pool_rows: report.shared_rows,
            refs_checked: report.refs_checked,
            source_objects_checked: report.source_objects_checked,
            source_objects_left_out: report.source_objects_left_out,
        }
    }
}

pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    if args.attestation && statement_only(&args.dest)? {
        return run_statement_only(&args.dest, args.map.as_deref(), args.allowed_signers);
    }
    let opts = VerifyOptions {
        source: args.source.clone(),
        map: args.map.clone(),
        jobs: args.jobs,
        ..VerifyOptions::new(&args.dest)
    };
    let bars = (!args.quiet).then(Bars::new);
    let progress: &dyn Progress = match &bars {
        Some(b) => b,
        None => &NoProgress,
    };
    let result = verify(&opts, progress);
    drop(bars);
    // The statements' findings, written out with the report's.
    let mut statement_text = Vec::new();
    let statement_problems = match &result {
        Ok(_) => {
            let subject = Subject::conversion(&args.dest, args.map.as_deref())?;
            Verdict::check(&subject, args.attestation, args.allowed_signers.clone())
                .print(&mut statement_text)?
        }
        Err(_) => 0,
    };
    let class = |report: &VerifyReport| {
        if report.is_clean() && statement_problems == 0 {
            ExitClass::Done
        } else {
            ExitClass::Refused
        }
    };
    if args.json {
        match &result {
            Ok(report) => CommandReport::finished(
                "verify",
                class(report),
                VerifyResult::new(report, statement_problems),
            ),
            Err(e) => CommandReport::stopped("verify", e.kind(), e),
        }
        .print()?;
    }
    let report = result?;
    // With --json, stdout holds the report alone.
    let mut out: Box<dyn Write> = if args.json {
        Box::new(std::io::stderr().lock())
    } else {
        Box::new(std::io::stdout().lock())
    };
    let statements = Statements {
        text: &statement_text,
        problems: statement_problems,
    };
    print_report(&report, opts.source.is_some(), &statements, &mut out)
        .context("writing the report")?;
    Ok(class(&report).exit_code())
}

/// What the check of DEST's signed statements found.
struct Statements<'a> {
    /// Its errors, warnings and notes, as lines.
    text: &'a [u8],
    problems: u64,
}

/// The problems, notes and warnings, then the summary line.
fn print_report(
    report: &VerifyReport,
    with_source: bool,
    statements: &Statements,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for problem in &report.problems {
        writeln!(out, "error: {problem}")?;
    }
    if report.problem_count > report.problems.len() as u64 {
        writeln!(
            out,
            "error: ... and {} more problems",
            report.problem_count - report.problems.len() as u64
        )?;
    }
    for (id, confirmed) in &report.irreversible {
        if *confirmed {
            writeln!(
                out,
                "note: {id}: its inverse translation is not exact (docs/translation.md, 'Round trips'); checked forward against SOURCE"
            )?;
        } else {
            writeln!(
                out,
                "warning: {id}: its inverse translation is not exact (docs/translation.md, 'Round trips'); pass --source to check its map row"
            )?;
        }
    }
    if report.surrogate_gitlinks > 0 {
        writeln!(
            out,
            "warning: {} gitlink(s) carry SURROGATE names (converted with --unmapped-gitlinks=placeholder); see DEST/rehash/gitlinks.txt",
            report.surrogate_gitlinks
        )?;
    }
    if report.verbatim_mergetags > 0 {
        writeln!(
            out,
            "note: {} commit(s) keep a mergetag verbatim (converted with --unmapped-mergetags=verbatim: the tagged object is not in the repository); their inverse translation was checked like any other",
            report.verbatim_mergetags
        )?;
    }
    if report.created_objects > 0 {
        writeln!(
            out,
            "note: {} object(s) were created by the conversion (--rekey-notes) or by `attest` (signed statements) and have no name in SOURCE's hash; checked by name and type",
            report.created_objects
        )?;
    }
    out.write_all(statements.text)?;
    let problems = report.problem_count + statements.problems;
    let kinds: Vec<String> = report
        .objects
        .iter()
        .map(|(k, n)| format!("{n} {k}s"))
        .collect();
    writeln!(
        out,
        "{}: {} objects ({}), {:.1} MB, {} map rows{}, {} refs{}, {} problem(s), in {:.1}s",
        if problems == 0 { "ok" } else { "FAILED" },
        report.objects_checked(),
        kinds.join(", "),
        report.bytes as f64 / 1e6,
        report.map_rows,
        if report.shared_rows > 0 {
            format!(" (+{} in the shared pool)", report.shared_rows)
        } else {
            String::new()
        },
        report.refs_checked,
        if with_source && report.source_objects_left_out > 0 {
            format!(
                ", {} source objects ({} left out by the ref selection)",
                report.source_objects_checked, report.source_objects_left_out
            )
        } else if with_source {
            format!(", {} source objects", report.source_objects_checked)
        } else {
            String::new()
        },
        problems,
        report.elapsed.as_secs_f64()
    )?;
    Ok(())
}
