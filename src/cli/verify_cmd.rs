//! `git-rehash verify <DEST> [--source <SOURCE>]`: re-reads a conversion
//! and checks it; exit status 1 on any mismatch, each named.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::progress_bars::Bars;
use git_rehash::progress::{NoProgress, Progress};
use git_rehash::verify::{VerifyOptions, verify};

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
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// No progress bars; problems and the summary are still printed.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
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
    let report = verify(&opts, progress)?;
    drop(bars);
    for problem in &report.problems {
        println!("error: {problem}");
    }
    if report.problem_count > report.problems.len() as u64 {
        println!(
            "error: ... and {} more problems",
            report.problem_count - report.problems.len() as u64
        );
    }
    for (id, confirmed) in &report.irreversible {
        if *confirmed {
            println!(
                "note: {id}: its inverse translation is not exact (docs/translation.md, 'Round trips'); checked forward against SOURCE"
            );
        } else {
            println!(
                "warning: {id}: its inverse translation is not exact (docs/translation.md, 'Round trips'); pass --source to check its map row"
            );
        }
    }
    if report.surrogate_gitlinks > 0 {
        println!(
            "warning: {} gitlink(s) carry SURROGATE names (converted with --unmapped-gitlinks=placeholder); see DEST/rehash/gitlinks.txt",
            report.surrogate_gitlinks
        );
    }
    if report.verbatim_mergetags > 0 {
        println!(
            "note: {} commit(s) keep a mergetag verbatim (converted with --unmapped-mergetags=verbatim: the tagged object is not in the repository); their inverse translation was checked like any other",
            report.verbatim_mergetags
        );
    }
    if report.created_objects > 0 {
        println!(
            "note: {} object(s) were created by the conversion (--rekey-notes) and have no name in SOURCE's hash; checked by name and type",
            report.created_objects
        );
    }
    let kinds: Vec<String> = report
        .objects
        .iter()
        .map(|(k, n)| format!("{n} {k}s"))
        .collect();
    println!(
        "{}: {} objects ({}), {:.1} MB, {} map rows{}, {} refs{}, {} problem(s), in {:.1}s",
        if report.is_clean() { "ok" } else { "FAILED" },
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
        if opts.source.is_some() {
            format!(", {} source objects", report.source_objects_checked)
        } else {
            String::new()
        },
        report.problem_count,
        report.elapsed.as_secs_f64()
    );
    Ok(if report.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
