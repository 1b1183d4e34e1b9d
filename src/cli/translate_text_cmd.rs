//! `git-rehash translate-text`: copy stdin to stdout, rewriting the SHA-1
//! names of commits and tags found in the map to their SHA-256 names.
//!
//! Exit status: 0 when the text was copied (unknown or ambiguous names are
//! reported, not errors), 2 on usage errors (no map database where one is
//! named), 3 when reading, writing or the database failed. A closed stdout
//! ends the run quietly with 0.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::map_cmd::open_map;
use git_rehash::hash::ObjectId;
use git_rehash::idmap::{HexPrefix, Resolution, Resolver};
use git_rehash::textmap::{BoxError, Lookup, NameLookup, RewriteOptions, rewrite_text};

#[derive(Debug, Args)]
pub struct TranslateTextArgs {
    /// A repository written by `git-rehash convert` (default: the current directory).
    #[arg(long, conflicts_with = "map")]
    repo: Option<PathBuf>,
    /// A map database file (default: <repo>/rehash/map.sqlite).
    #[arg(long)]
    map: Option<PathBuf>,
    /// Write abbreviated names with this many digits (more where that would be
    /// ambiguous) instead of the length they had.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(4..=64))]
    abbrev: Option<u32>,
    /// Do not print the counts on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub fn run(args: TranslateTextArgs) -> anyhow::Result<ExitCode> {
    let maps = open_map(args.map.as_deref(), args.repo.as_deref())?;
    let mut resolver = Resolver::over(&maps)?;
    resolver.hold_snapshot()?;
    let opts = RewriteOptions {
        abbrev: args.abbrev.map(|n| n as usize),
    };
    let counts = rewrite_text(
        std::io::stdin().lock(),
        std::io::stdout().lock(),
        &mut MapLookup(resolver),
        opts,
    )?;
    if !args.quiet {
        eprintln!(
            "translate-text: replaced {} ids, left {} unknown, left {} ambiguous",
            counts.replaced, counts.unknown, counts.ambiguous
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Commits and tags of the map, by SHA-1 name or abbreviation.
struct MapLookup<'m>(Resolver<'m>);

impl NameLookup for MapLookup<'_> {
    fn lookup(&mut self, sha1_hex: &[u8]) -> Result<Lookup, BoxError> {
        let prefix = HexPrefix::parse(sha1_hex)?;
        Ok(match self.0.resolve_committish_sha1(&prefix)? {
            Resolution::Found(row) => Lookup::Found(row.sha256),
            Resolution::Missing => Lookup::Unknown,
            Resolution::Ambiguous => Lookup::Ambiguous,
        })
    }

    fn unique_sha256_len(&mut self, sha256: &ObjectId, at_least: usize) -> Result<usize, BoxError> {
        Ok(self.0.unique_sha256_len(sha256, at_least)?)
    }
}
