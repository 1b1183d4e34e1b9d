//! `git-rehash translate-text`: copy stdin to stdout, rewriting the names
//! SOURCE gave commits and tags found in the map to DEST's names (SHA-1 to
//! SHA-256, or SHA-256 to SHA-1 for a DEST converted from SHA-256).
//!
//! Exit status: 0 when the text was copied (unknown or ambiguous names are
//! reported, not errors), 2 on usage errors (no map database where one is
//! named), 3 when reading, writing or the database failed. A closed stdout
//! ends the run quietly with 0.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::map_cmd::open_map;
use git_rehash::hash::{HashKind, ObjectId};
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
    let quoted = maps[0].direction()?.source();
    let mut resolver = Resolver::over(&maps)?;
    resolver.hold_snapshot()?;
    let opts = RewriteOptions {
        abbrev: args.abbrev.map(|n| n as usize),
    };
    let counts = rewrite_text(
        std::io::stdin().lock(),
        std::io::stdout().lock(),
        &mut MapLookup { resolver, quoted },
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

/// Commits and tags of the map, by SOURCE's name or abbreviation.
struct MapLookup<'m> {
    resolver: Resolver<'m>,
    /// SOURCE's hash, which the text quotes.
    quoted: HashKind,
}

impl NameLookup for MapLookup<'_> {
    fn quoted(&self) -> HashKind {
        self.quoted
    }

    fn lookup(&mut self, hex: &[u8]) -> Result<Lookup, BoxError> {
        let prefix = HexPrefix::parse(hex)?;
        Ok(
            match self.resolver.resolve_committish(&prefix, self.quoted)? {
                Resolution::Found(row) => Lookup::Found(match self.quoted {
                    HashKind::Sha1 => row.sha256,
                    HashKind::Sha256 => row.sha1,
                }),
                Resolution::Missing => Lookup::Unknown,
                Resolution::Ambiguous => Lookup::Ambiguous,
            },
        )
    }

    fn unique_len(&mut self, id: &ObjectId, at_least: usize) -> Result<usize, BoxError> {
        Ok(self.resolver.unique_len(id, at_least)?)
    }
}
