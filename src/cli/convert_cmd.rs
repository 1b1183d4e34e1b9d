//! `git-rehash convert <SOURCE> <DEST>`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::progress_bars::Bars;
use crate::convert::{ConvertOptions, NoProgress, Progress, convert};

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The SHA-1 repository to convert (bare, or a work tree). Never written.
    source: PathBuf,
    /// Where to create the SHA-256 repository (bare). Must not exist, or be empty.
    dest: PathBuf,
    /// Refuse commit header fields git 2.47 does not know (as git does),
    /// instead of copying them verbatim.
    #[arg(long)]
    strict_headers: bool,
    /// Start over: remove an unfinished earlier git-rehash conversion at DEST.
    #[arg(long)]
    force: bool,
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

pub fn run(args: ConvertArgs) -> anyhow::Result<ExitCode> {
    let opts = ConvertOptions {
        strict_headers: args.strict_headers,
        force: args.force,
        compression: args.compression,
        jobs: args.jobs,
        ..ConvertOptions::new(&args.source, &args.dest)
    };
    let bars = (!args.quiet).then(Bars::new);
    let progress: &dyn Progress = match &bars {
        Some(b) => b,
        None => &NoProgress,
    };
    let outcome = convert(&opts, progress)?;
    if !args.quiet {
        let kinds: Vec<String> = outcome
            .objects_by_kind
            .iter()
            .map(|(k, n)| format!("{n} {k}s"))
            .collect();
        eprintln!(
            "converted {} objects ({}), {:.1} MB inflated -> {:.1} MB pack, {} refs, {} reflog entries dropped, in {:.1}s",
            outcome.objects_read,
            kinds.join(", "),
            outcome.bytes_inflated as f64 / 1e6,
            outcome.pack_size as f64 / 1e6,
            outcome.refs_written,
            outcome.reflog_entries_dropped,
            outcome.elapsed.as_secs_f64()
        );
        for (name, count) in &outcome.unknown_headers {
            eprintln!("note: copied unknown commit header '{name}' verbatim in {count} commit(s)");
        }
        for name in &outcome.pseudo_refs_dropped {
            eprintln!("note: dropped {name}: it names an object that is not in the repository");
        }
        eprintln!("map: {}", outcome.map_path.display());
    }
    Ok(ExitCode::SUCCESS)
}
