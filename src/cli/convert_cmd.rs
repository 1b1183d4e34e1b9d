//! `git-rehash convert <SOURCE> <DEST>`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;

use super::convert_exit::interrupted;
use super::json_report::RunReport;
use super::phase_timings::PhaseTimings;
use super::progress_bars::Bars;
use git_rehash::convert::{
    ConvertError, ConvertOptions, SubmoduleSource, UnmappedGitlinks, UnmappedMergetags, convert,
};
use git_rehash::pack::NameHashVersion;
use git_rehash::progress::{NoProgress, Progress};
use git_rehash::refs::{RefPattern, RefSelection, RefStorage};

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The repository to convert, SHA-1 or SHA-256 (bare, or a work tree).
    /// Never written.
    source: PathBuf,
    /// The repository (bare) to create in the other hash, or to resume /
    /// update when an earlier `convert` of the same SOURCE made it.
    dest: PathBuf,
    /// Refuse commit header fields git 2.47 does not know (as git does),
    /// instead of copying them verbatim.
    #[arg(long)]
    strict_headers: bool,
    /// Start over: delete an existing git-rehash DEST (finished or not)
    /// instead of resuming or updating it.
    #[arg(long)]
    force: bool,
    /// zlib level (0-9) for data that is compressed anew. Inputs up to 1 KiB
    /// (mostly tree deltas) use level 1 at most: several times faster, and
    /// under 1% larger on them; up to 128 bytes they are stored.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(0..=9))]
    compression: u32,
    /// Delta search: how many objects before each one, in git's order (by
    /// path, then size), it may take as its base (as git repack -f
    /// --window). It is diffed against the 8 nearest and the 16 of the
    /// others that resemble it most. 0: no search, keep the source packs'
    /// pairing (fast, as large as the source pack).
    #[arg(long, default_value_t = ConvertOptions::DEFAULT_WINDOW as u64, value_parser = clap::value_parser!(u64).range(0..=10000))]
    window: u64,
    /// Longest delta chain written (as git repack --depth; git's limit is 4095).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(0..=4095))]
    depth: u32,
    /// With --window 0: do not keep the source packs' pairing either, so
    /// every object is stored whole. (A search chooses every base itself.)
    #[arg(long)]
    no_reuse_deltas: bool,
    /// Benchmark aid: diff each object against every object of the
    /// window, as git does, instead of the nearest and most resembling.
    #[arg(long, hide = true)]
    try_every_base: bool,
    /// The path hash the delta search sorts objects by: 2 (default) hashes
    /// the whole path, so the versions of each file form their own run; 1
    /// only the file's name, so every file of one name (each Makefile)
    /// shares a run (as git pack-objects --name-hash-version).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2))]
    name_hash_version: u8,
    /// Benchmark aid: write one line per delta the window search chose to
    /// FILE (where its base sat in the window, whether it is the source
    /// pack's base); benches/candidate_summary.py sums it up.
    #[arg(long, value_name = "FILE", hide = true)]
    candidate_log: Option<PathBuf>,
    /// Worker threads (default, and 0: all cores, as git's pack.threads).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Also write git's own compat map (objects/loose-object-idx) and set
    /// extensions.compatObjectFormat = sha1 (experimental in git 2.47).
    #[arg(long)]
    git_compat_map: bool,
    /// Name gitlink targets through this map: a submodule's
    /// rehash/map.sqlite or a file of "<sha1> <sha256>" lines. Repeatable.
    #[arg(long, value_name = "FILE")]
    submodule_map: Vec<PathBuf>,
    /// What to do with gitlinks no map knows: refuse (default), or
    /// placeholder (lossy: deterministic surrogate names, recorded as such).
    #[arg(long, value_name = "POLICY", default_value = "refuse", value_parser = ["refuse", "placeholder"])]
    unmapped_gitlinks: String,
    /// What to do with a mergetag whose tagged object is not in SOURCE:
    /// refuse (default, listing every such commit), or verbatim (keep the
    /// field byte for byte; the map records the commit as translated so).
    #[arg(long, value_name = "POLICY", default_value = "refuse", value_parser = ["refuse", "verbatim"])]
    unmapped_mergetags: String,
    /// Convert the submodules' repositories (SOURCE's modules/<name>,
    /// recursively) first, into DEST/modules/<name>, and name gitlinks
    /// through their maps.
    #[arg(long)]
    recurse_submodules: bool,
    /// The repository of the submodule at PATH (converted first into
    /// DEST/modules/<name>, its own submodules too). Repeatable.
    #[arg(long, value_name = "PATH=REPOSITORY")]
    submodule: Vec<SubmoduleSource>,
    /// Add a commit on top of each notes ref (refs/notes/*) whose tree names
    /// every note by the SHA-256 of its object, so `git notes` in DEST finds
    /// them. The new commits and trees have no SHA-1 (recorded as created).
    #[arg(long, conflicts_with = "git_compat_map")]
    rekey_notes: bool,
    /// An earlier conversion of the pool SOURCE borrows objects from
    /// (objects/info/alternates): the objects it holds are neither copied
    /// nor mapped again, and DEST borrows them from it. Later runs keep it.
    #[arg(long, value_name = "POOL-DEST")]
    shared_with: Option<PathBuf>,
    /// DEST's ref storage: files (loose refs, packed-refs, logs/) or
    /// reftable. Default: SOURCE's on a first run, DEST's own on a later one.
    #[arg(long, value_name = "FORMAT", value_parser = ["files", "reftable"])]
    ref_format: Option<String>,
    /// Convert only these refs and what they (and HEAD) reach; objects no
    /// selected ref reaches are left out. A full ref name with git's glob
    /// characters, * matching / too (refs/heads/*, refs/tags/v2.*); a name
    /// without them selects that ref and every ref below it (refs/heads).
    /// Repeatable; default: every ref. Later runs keep the selection.
    #[arg(long = "refs", value_name = "PATTERN")]
    refs: Vec<RefPattern>,
    /// Leave out the refs this pattern matches (as --refs), and what only
    /// they reach: --exclude-refs 'refs/pull/*' converts a hosted mirror
    /// without its pull-request refs. Repeatable.
    #[arg(long, value_name = "PATTERN")]
    exclude_refs: Vec<RefPattern>,
    /// Convert only what SOURCE's refs and HEAD reach (unreachable objects
    /// left out, as git gc would prune them); implied by --refs and
    /// --exclude-refs. Without any of the three, every object SOURCE holds
    /// is converted.
    #[arg(long)]
    reachable_only: bool,
    /// No progress bars and no summary.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Print the wall and CPU time of every phase at the end (on stderr,
    /// also with --quiet).
    #[arg(long)]
    timings: bool,
    /// Print one JSON object on stdout at the end of the run, whatever its
    /// outcome: status, exit code, counts, the error with the objects it
    /// names, phase timings.
    #[arg(long)]
    json: bool,
    /// At the end, sign a statement of the conversion into DEST (as
    /// `git-rehash attest DEST` does), with your git signing setup.
    #[arg(long)]
    attest: bool,
}

pub fn run(args: ConvertArgs) -> anyhow::Result<ExitCode> {
    let interrupt = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupt);
    // SIGINT and SIGTERM: stop at the next checkpoint (between chunks).
    // Best effort: without a handler, the signal kills us, which is safe too.
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    let opts = ConvertOptions {
        interrupt: Some(interrupt),
        ..options(&args)
    };
    let bars = (!args.quiet).then(Bars::new);
    let drawn: &dyn Progress = match &bars {
        Some(b) => b,
        None => &NoProgress,
    };
    let timings = (args.timings || args.json).then(|| PhaseTimings::new(drawn));
    let progress: &dyn Progress = match &timings {
        Some(t) => t,
        None => drawn,
    };
    let result = convert(&opts, progress);
    if let Some(timings) = &timings {
        if args.timings {
            eprint!("{}", timings.report());
        }
        if args.json {
            RunReport::new(&args.source, &args.dest, &result, &timings.phases()).print()?;
        }
    }
    let outcome = match result {
        Ok(outcome) => outcome,
        Err(ConvertError::Interrupted(_)) => {
            let rerun = format!(
                "git-rehash convert {} {}",
                args.source.display(),
                args.dest.display()
            );
            return Ok(interrupted(
                bars.as_ref(),
                "everything converted so far",
                &rerun,
            ));
        }
        Err(e) => return Err(e.into()),
    };
    super::repack_cmd::report_serving(&outcome.serving, args.quiet);
    if !args.quiet {
        super::convert_summary::print_summary(&outcome);
    }
    if args.attest {
        let subject = git_rehash::attest::Subject::conversion(&outcome.dest, None)?;
        super::attest_cmd::attest_after_run(&subject, args.quiet, "the conversion")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The library's options for the command line's.
fn options(args: &ConvertArgs) -> ConvertOptions {
    ConvertOptions {
        strict_headers: args.strict_headers,
        force: args.force,
        compression: args.compression,
        window: args.window as usize,
        depth: args.depth,
        reuse_deltas: !args.no_reuse_deltas,
        try_every_base: args.try_every_base,
        name_hash_version: match args.name_hash_version {
            1 => NameHashVersion::V1,
            _ => NameHashVersion::V2,
        },
        candidate_log: args.candidate_log.clone(),
        jobs: args.jobs,
        git_compat_map: args.git_compat_map,
        submodule_maps: args.submodule_map.clone(),
        unmapped_gitlinks: if args.unmapped_gitlinks == "placeholder" {
            UnmappedGitlinks::Placeholder
        } else {
            UnmappedGitlinks::Refuse
        },
        unmapped_mergetags: if args.unmapped_mergetags == "verbatim" {
            UnmappedMergetags::Verbatim
        } else {
            UnmappedMergetags::Refuse
        },
        recurse_submodules: args.recurse_submodules,
        submodules: args.submodule.clone(),
        rekey_notes: args.rekey_notes,
        shared_with: args.shared_with.clone(),
        ref_format: args.ref_format.as_deref().and_then(RefStorage::from_name),
        ref_selection: (args.reachable_only
            || !args.refs.is_empty()
            || !args.exclude_refs.is_empty())
        .then(|| RefSelection {
            refs: args.refs.clone(),
            exclude: args.exclude_refs.clone(),
        }),
        ..ConvertOptions::new(&args.source, &args.dest)
    }
}
