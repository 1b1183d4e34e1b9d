//! `git-rehash export-sha1 <DEST> <MIRROR>`: the history of a SHA-256
//! repository made by `convert`, written back into a SHA-1 mirror.
//!
//! Exit status: 0 when MIRROR mirrors DEST, 1 when the export was refused
//! or failed (the message says why; MIRROR's refs are unchanged and a
//! re-run resumes), 130 when interrupted, 2 on usage errors.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;

use super::convert_exit::interrupted;
use super::progress_bars::Bars;
use git_rehash::convert::UnmappedGitlinks;
use git_rehash::export::{ExportError, ExportOptions, ExportOutcome, export_sha1};
use git_rehash::progress::{NoProgress, Progress};

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The SHA-256 repository `git-rehash convert` made, with the commits,
    /// tags and branches made in it since. Only its map (and the gitlink
    /// pairs beside it) is written.
    dest: PathBuf,
    /// The SHA-1 repository to bring in line with DEST: a clone of the
    /// original SOURCE (only what it lacks is written) or an empty one.
    mirror: PathBuf,
    /// Name gitlink targets (submodule commits) through this map: a
    /// submodule's rehash/map.sqlite or a file of "<sha1> <sha256>" lines.
    /// Repeatable. DEST's own rehash/gitlinks.txt is always read.
    #[arg(long, value_name = "FILE")]
    submodule_map: Vec<PathBuf>,
    /// What to do with gitlinks no map knows: refuse (default), or
    /// placeholder (lossy: deterministic surrogate SHA-1 names).
    #[arg(long, value_name = "POLICY", default_value = "refuse", value_parser = ["refuse", "placeholder"])]
    unmapped_gitlinks: String,
    /// zlib level (0-9) for data that is compressed anew.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(0..=9))]
    compression: u32,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// No progress bars and no summary.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let interrupt = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupt);
    // SIGINT and SIGTERM: stop at the next chunk. Without a handler the
    // signal kills us, which is safe too.
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    let opts = ExportOptions {
        submodule_maps: args.submodule_map.clone(),
        unmapped_gitlinks: if args.unmapped_gitlinks == "placeholder" {
            UnmappedGitlinks::Placeholder
        } else {
            UnmappedGitlinks::Refuse
        },
        compression: args.compression,
        jobs: args.jobs,
        interrupt: Some(interrupt),
        ..ExportOptions::new(&args.dest, &args.mirror)
    };
    let bars = (!args.quiet).then(Bars::new);
    let progress: &dyn Progress = match &bars {
        Some(b) => b,
        None => &NoProgress,
    };
    let outcome = match export_sha1(&opts, progress) {
        Ok(outcome) => outcome,
        Err(ExportError::Interrupted(_)) => {
            let rerun = format!(
                "git-rehash export-sha1 {} {}",
                args.dest.display(),
                args.mirror.display()
            );
            return Ok(interrupted(bars.as_ref(), "what was written", &rerun));
        }
        Err(e) => return Err(e.into()),
    };
    if !args.quiet {
        print_summary(&outcome);
    }
    Ok(ExitCode::SUCCESS)
}

/// The one-line summary, then notes.
fn print_summary(outcome: &ExportOutcome) {
    let kinds: Vec<String> = outcome
        .written_by_kind
        .iter()
        .map(|(k, n)| format!("{n} {k}s"))
        .collect();
    let refs = format!(
        "{} refs created, {} moved, {} deleted",
        outcome.refs_created, outcome.refs_updated, outcome.refs_deleted
    );
    if kinds.is_empty() {
        eprintln!(
            "exported: nothing new to write, {} new pairs recorded, {refs}, in {:.1}s",
            outcome.pairs_recorded,
            outcome.elapsed.as_secs_f64()
        );
    } else {
        eprintln!(
            "exported: {} objects ({}) -> {:.1} MB in 1 pack, {} new pairs recorded, {refs}, in {:.1}s",
            outcome.objects_written(),
            kinds.join(", "),
            outcome.pack_size as f64 / 1e6,
            outcome.pairs_recorded,
            outcome.elapsed.as_secs_f64()
        );
    }
    if outcome.created_skipped > 0 {
        eprintln!(
            "note: {} object(s) created by --rekey-notes have no SHA-1 and were not exported; notes refs name the translated notes commits",
            outcome.created_skipped
        );
    }
    if outcome.gitlink_surrogates > 0 {
        eprintln!(
            "warning: {} submodule commit(s) got SURROGATE SHA-1 names (--unmapped-gitlinks=placeholder)",
            outcome.gitlink_surrogates
        );
    }
    if !outcome.refs_left_alone.is_empty() {
        let shown: Vec<&str> = outcome
            .refs_left_alone
            .iter()
            .take(5)
            .map(String::as_str)
            .collect();
        let more = outcome.refs_left_alone.len().saturating_sub(shown.len());
        eprintln!(
            "note: {} ref(s) of MIRROR left alone (not DEST's: they name objects DEST does not have, or lie outside branches, tags, notes and replace refs): {}{}",
            outcome.refs_left_alone.len(),
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
    }
}
