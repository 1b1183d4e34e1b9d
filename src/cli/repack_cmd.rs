//! `git-rehash repack DEST`: one pack again after incremental runs.
//!
//! Exit status: 0 when DEST has one pack with its bitmap and its
//! commit-graph, 1 when DEST needs a decision first (damaged, or its
//! conversion unfinished), 2 when DEST is not a conversion, 3 when the
//! repack failed (DEST stays a complete repository; running it again
//! finishes it).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use serde::Serialize;

use super::command_report::CommandReport;
use super::exit_class::ExitClass;
use super::progress_bars::Bars;
use git_rehash::convert::{ServingIndexes, repack};
use git_rehash::progress::{NoProgress, Progress};

#[derive(Debug, Args)]
pub struct RepackArgs {
    /// A repository written by `git-rehash convert`.
    dest: PathBuf,
    /// No progress bars and no summary.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Print one JSON object on stdout at the end of the run, whatever its
    /// outcome: status (the exit class), exit code, the packs, the error.
    #[arg(long)]
    json: bool,
}

/// What `--json` reports of a repack that finished.
#[derive(Serialize)]
struct RepackResult {
    packs_before: usize,
    pack_bytes: u64,
}

pub fn run(args: RepackArgs) -> anyhow::Result<ExitCode> {
    let bars = (!args.quiet).then(Bars::new);
    let progress: &dyn Progress = match &bars {
        Some(b) => b,
        None => &NoProgress,
    };
    let result = repack(&args.dest, progress);
    if args.json {
        match &result {
            Ok(outcome) => CommandReport::finished(
                "repack",
                ExitClass::Done,
                RepackResult {
                    packs_before: outcome.packs_before,
                    pack_bytes: outcome.pack_size,
                },
            ),
            Err(e) => CommandReport::stopped("repack", e.kind(), e),
        }
        .print()?;
    }
    let outcome = result?;
    report_serving(&outcome.serving, args.quiet);
    if !args.quiet {
        if outcome.packs_before > 1 {
            eprintln!(
                "repacked: {} packs -> 1 pack of {:.1} MB",
                outcome.packs_before,
                outcome.pack_size as f64 / 1e6
            );
        } else {
            eprintln!("nothing to repack: {} has one pack", args.dest.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Says what the run wrote of DEST's bitmap and commit-graph.
pub fn report_serving(serving: &ServingIndexes, quiet: bool) {
    if let (Some((written, took)), false) = (serving, quiet) {
        eprintln!(
            "reachability bitmap: {} commits, {:.1} MB; commit-graph: {} commits; in {:.2}s",
            written.bitmap_commits,
            written.bitmap_bytes as f64 / 1e6,
            written.graph_commits,
            took.as_secs_f64()
        );
    }
}
