//! `git-rehash repack DEST`: one pack again after incremental runs.
//!
//! Exit status: 0 when DEST has one pack (and, with git on PATH, its
//! commit-graph and bitmap), 1 when it could not be repacked (the message
//! says why; DEST stays a complete repository), 2 on usage errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

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
}

pub fn run(args: RepackArgs) -> anyhow::Result<ExitCode> {
    let bars = (!args.quiet).then(Bars::new);
    let progress: &dyn Progress = match &bars {
        Some(b) => b,
        None => &NoProgress,
    };
    let outcome = repack(&args.dest, progress)?;
    report_serving(&outcome.serving, &args.dest, args.quiet);
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

/// Says what became of DEST's commit-graph and bitmap: a warning when git
/// was missing (even with `--quiet`), the time they took otherwise.
pub fn report_serving(serving: &ServingIndexes, dest: &Path, quiet: bool) {
    match serving {
        ServingIndexes::NoGit => eprintln!(
            "warning: git is not on PATH, so {0} has no commit-graph and no bitmap; where git is, run:\n  git --git-dir {0} commit-graph write --reachable && git --git-dir {0} multi-pack-index write --bitmap",
            dest.display()
        ),
        ServingIndexes::Written {
            commit_graph,
            bitmap,
        } if !quiet => eprintln!(
            "commit-graph written in {:.1}s, reachability bitmap in {:.1}s",
            commit_graph.as_secs_f64(),
            bitmap.as_secs_f64()
        ),
        _ => {}
    }
}
