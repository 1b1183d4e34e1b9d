//! `git-rehash export-sha1 <DEST> <MIRROR>`: the history of a SHA-256
//! repository made by `convert`, written back into a SHA-1 mirror.
//!
//! Exit status: 0 when MIRROR mirrors DEST, 1 when the export was refused
//! (the message says why and what to do; MIRROR's refs are unchanged), 2
//! when DEST or MIRROR is not what the command needs, 3 when it failed (a
//! re-run resumes), 130 when interrupted.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;

use serde::Serialize;

use super::command_report::CommandReport;
use super::convert_exit::interrupted;
use super::exit_class::ExitClass;
use super::progress_bars::Bars;
use git_rehash::attest::{RunRecord, SourceStatement, Subject};
use git_rehash::convert::UnmappedGitlinks;
use git_rehash::export::{ExportError, ExportOptions, ExportOutcome, export_sha1};
use git_rehash::hash::HashKind;
use git_rehash::progress::{NoProgress, Progress};
use git_rehash::refs::rehash_refs::attestation_of;
use git_rehash::repo::dest_layout;
use serde_json::json;

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
    /// Worker threads (default, and 0: all cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// No progress bars and no summary.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Print one JSON object on stdout at the end of the run, whatever its
    /// outcome: status (the exit class), exit code, what was written, the
    /// error.
    #[arg(long)]
    json: bool,
    /// At the end, sign a statement of the export into MIRROR (its refs,
    /// DEST's map, its packs, DEST's own statement), with your git
    /// signing setup.
    #[arg(long)]
    attest: bool,
}

/// What `--json` reports of an export that finished.
#[derive(Serialize)]
struct ExportResult {
    objects_written: u64,
    objects_by_type: BTreeMap<&'static str, u64>,
    pack_bytes: u64,
    pairs_recorded: u64,
    refs_created: usize,
    refs_updated: usize,
    refs_deleted: usize,
    refs_left_alone: Vec<String>,
    created_skipped: u64,
    gitlink_surrogates: u64,
}

impl ExportResult {
    fn new(outcome: &ExportOutcome) -> Self {
        ExportResult {
            objects_written: outcome.objects_written(),
            objects_by_type: outcome
                .written_by_kind
                .iter()
                .map(|(kind, n)| (kind.as_str(), *n))
                .collect(),
            pack_bytes: outcome.pack_size,
            pairs_recorded: outcome.pairs_recorded,
            refs_created: outcome.refs_created,
            refs_updated: outcome.refs_updated,
            refs_deleted: outcome.refs_deleted,
            refs_left_alone: outcome.refs_left_alone.clone(),
            created_skipped: outcome.created_skipped,
            gitlink_surrogates: outcome.gitlink_surrogates,
        }
    }
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
    let result = export_sha1(&opts, progress);
    if args.json {
        match &result {
            Ok(outcome) => {
                CommandReport::finished("export-sha1", ExitClass::Done, ExportResult::new(outcome))
            }
            Err(e) => CommandReport::stopped("export-sha1", e.kind(), e),
        }
        .print()?;
    }
    let outcome = match result {
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
    if args.attest {
        let subject = mirror_subject(&args)?;
        super::attest_cmd::attest_after_run(&subject, args.quiet, "the export")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// MIRROR as the statement describes it: paired with DEST by DEST's map,
/// made with this run's options, from DEST with DEST's statement.
fn mirror_subject(args: &ExportArgs) -> anyhow::Result<Subject> {
    let options = BTreeMap::from([
        ("compression".to_string(), json!(args.compression)),
        (
            "unmapped_gitlinks".to_string(),
            json!(args.unmapped_gitlinks),
        ),
    ]);
    let dest_statement = attestation_of(&args.dest, HashKind::Sha256)?;
    Ok(Subject::mirror(
        &args.mirror,
        &dest_layout::map_db(&args.dest),
        Some(RunRecord::this_tool(options)),
        SourceStatement::Known(dest_statement),
    )?)
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
            "note: {} object(s) created by --rekey-notes or `git-rehash attest` have no SHA-1 and were not exported; notes refs name the translated notes commits",
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
