//! `git-rehash map --repo <DEST> --export`: the map as
//! `<sha1> <sha256> <type>` lines, sorted by SHA-1.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use crate::idmap::{ForEachError, IdMap, map_path};

#[derive(Debug, Args)]
pub struct MapArgs {
    /// A repository written by `git-rehash convert`.
    #[arg(long, conflicts_with = "map")]
    repo: Option<PathBuf>,
    /// A map database file (default: <repo>/rehash/map.sqlite).
    #[arg(long)]
    map: Option<PathBuf>,
    /// Print every pair.
    #[arg(long)]
    export: bool,
}

pub fn run(args: MapArgs) -> anyhow::Result<ExitCode> {
    let path = match (&args.map, &args.repo) {
        (Some(m), _) => m.clone(),
        (None, Some(r)) => map_path(r),
        (None, None) => map_path(&std::env::current_dir()?),
    };
    if !path.is_file() {
        anyhow::bail!(
            "no map database at {} (is this a git-rehash conversion?)",
            path.display()
        );
    }
    let map = IdMap::open_read_only(&path)?;
    if !args.export {
        anyhow::bail!("nothing to do: pass --export");
    }
    let stdout = std::io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 16, stdout);
    let mut line = Vec::with_capacity(128);
    let result = map.for_each(|row| {
        line.clear();
        row.sha1.write_hex(&mut line);
        line.push(b' ');
        row.sha256.write_hex(&mut line);
        line.push(b' ');
        line.extend_from_slice(row.kind.as_str().as_bytes());
        line.push(b'\n');
        out.write_all(&line)
    });
    match result {
        Ok(()) => {}
        Err(ForEachError::Io(e)) => return Err(e).context("writing the export"),
        Err(ForEachError::Map(e)) => return Err(e.into()),
    }
    out.flush().context("writing the export")?;
    Ok(ExitCode::SUCCESS)
}
