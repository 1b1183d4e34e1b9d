//! `git-rehash map`: look names up in the SHA-1 <-> SHA-256 map (arguments
//! or `--batch` on stdin, like `git cat-file --batch-check`), or export it.
//!
//! A DEST converted with `--shared-with` answers for its pool's objects
//! too: the map names the pool's map, which is read with it.
//!
//! Exit status: 0 every id was found, 1 some id was missing or ambiguous,
//! 2 usage (a bad id, no map database where one is named), 3 a failure
//! of the machine (I/O, the database). A closed stdout ends the run
//! quietly with 0.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};

use super::exit_class::{ExitClass, UsageError};
use git_rehash::hash::{HashKind, ObjectId};
use git_rehash::idmap::{
    ForEachError, HexPrefix, IdMap, MapRow, Resolution, Resolver, export_rows, open_with_shares,
};
use git_rehash::object::ObjectKind;
use git_rehash::repo::dest_layout;

#[derive(Debug, Args)]
pub struct MapArgs {
    /// A repository written by `git-rehash convert` (default: the current directory).
    #[arg(long, conflicts_with = "map")]
    repo: Option<PathBuf>,
    /// A map database file (default: <repo>/rehash/map.sqlite).
    #[arg(long)]
    map: Option<PathBuf>,
    /// Output format. Queries: text, json. --export: also tsv,
    /// loose-object-idx, commit-map.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Read ids from stdin, one per line; answer each line as it is read.
    #[arg(long, conflicts_with_all = ["export", "ids"])]
    batch: bool,
    /// Print every pair, sorted by SHA-1.
    #[arg(long, conflicts_with = "ids")]
    export: bool,
    /// Full or abbreviated (4+ hex digits) SHA-1 or SHA-256 names.
    #[arg(value_name = "ID")]
    ids: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// `<sha1> <sha256> <type>`
    Text,
    /// One JSON object per line.
    Json,
    /// Tab-separated with a header row (--export only).
    Tsv,
    /// git's `objects/loose-object-idx` (--export only).
    LooseObjectIdx,
    /// git-filter-repo's `commit-map`, commits only (--export only).
    CommitMap,
}

/// Opens the map named by `--map`, `--repo` or the current directory,
/// read-only, followed by the maps of the pools it shares with.
pub(super) fn open_map(map: Option<&Path>, repo: Option<&Path>) -> anyhow::Result<Vec<IdMap>> {
    let path = match (map, repo) {
        (Some(m), _) => m.to_path_buf(),
        (None, Some(r)) => dest_layout::map_db(r),
        (None, None) => dest_layout::map_db(&std::env::current_dir()?),
    };
    if !path.is_file() {
        return Err(UsageError(format!(
            "no map database at {}: name a repository `git-rehash convert` made (--repo DEST), \
             or its map (--map FILE)",
            path.display()
        ))
        .into());
    }
    Ok(open_with_shares(IdMap::open_read_only(&path)?)?)
}

pub fn run(args: MapArgs) -> anyhow::Result<ExitCode> {
    let format = args.format.unwrap_or(Format::Text);
    if !args.export && !matches!(format, Format::Text | Format::Json) {
        return Err(UsageError(format!(
            "--format {} is an export format: add --export",
            format
                .to_possible_value()
                .expect("no skipped variants")
                .get_name()
        ))
        .into());
    }
    if !args.export && !args.batch && args.ids.is_empty() {
        return Err(UsageError("nothing to do: give ids, --batch or --export".into()).into());
    }
    // Validate arguments before opening anything: a typo is a usage error.
    let ids = args
        .ids
        .iter()
        .map(|id| HexPrefix::parse(id.as_bytes()).map(|p| (id, p)))
        .collect::<Result<Vec<_>, _>>()?;
    let maps = open_map(args.map.as_deref(), args.repo.as_deref())?;
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    if args.export {
        export(&maps, format, &mut out)?;
        out.flush().context("writing the export")?;
        return Ok(ExitCode::SUCCESS);
    }
    let json = format == Format::Json;
    let mut resolver = Resolver::over(&maps)?;
    let mut all_found = true;
    let mut line = Vec::with_capacity(256);
    if args.batch {
        resolver.hold_snapshot()?;
        all_found = batch(&mut resolver, json, &mut out)?;
    } else {
        for (input, prefix) in ids {
            let answer = resolver.resolve(&prefix)?;
            all_found &= matches!(answer, Resolution::Found(_));
            line.clear();
            answer_line(&mut line, input.as_bytes(), &answer, json);
            out.write_all(&line).context("writing the answers")?;
        }
    }
    out.flush().context("writing the answers")?;
    Ok(if all_found {
        ExitClass::Done
    } else {
        ExitClass::Refused
    }
    .exit_code())
}

/// Longest input line kept for the echo in the answer; longer lines cannot
/// be ids, and keeping them whole would let one line use unbounded memory.
const MAX_ECHO: usize = 1024;

/// Answers stdin line by line. Output is flushed whenever the input read so
/// far holds no further complete line, i.e. before anything could block on
/// reading: a co-process gets each answer at once, a file or a fast pipe is
/// answered in large writes.
fn batch(resolver: &mut Resolver<'_>, json: bool, out: &mut impl Write) -> anyhow::Result<bool> {
    let mut input = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let mut all_found = true;
    let mut text = Vec::with_capacity(MAX_ECHO);
    let mut line = Vec::with_capacity(256);
    loop {
        text.clear();
        if !read_line_capped(&mut input, &mut text).context("reading ids from stdin")? {
            break;
        }
        let trimmed = text.trim_ascii();
        let answer = match HexPrefix::parse(trimmed) {
            Ok(prefix) => resolver.resolve(&prefix)?,
            // Like `git cat-file --batch-check`: a name that cannot be an
            // object's is reported as missing, and the stream goes on.
            Err(_) => Resolution::Missing,
        };
        all_found &= matches!(answer, Resolution::Found(_));
        line.clear();
        answer_line(&mut line, trimmed, &answer, json);
        out.write_all(&line).context("writing the answers")?;
        if !input.buffer().contains(&b'\n') {
            out.flush().context("writing the answers")?;
        }
    }
    Ok(all_found)
}

/// Reads one line (without its newline) into `text`, keeping at most
/// [`MAX_ECHO`] bytes. Returns false at the end of input.
fn read_line_capped(input: &mut impl BufRead, text: &mut Vec<u8>) -> std::io::Result<bool> {
    let mut read_any = false;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(read_any);
        }
        read_any = true;
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        let room = MAX_ECHO.saturating_sub(text.len());
        text.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = done.unwrap_or(buf.len());
        input.consume(used);
        if done.is_some() {
            return Ok(true);
        }
    }
}

fn answer_line(line: &mut Vec<u8>, input: &[u8], answer: &Resolution, json: bool) {
    let status = match answer {
        Resolution::Found(_) => "found",
        Resolution::Missing => "missing",
        Resolution::Ambiguous => "ambiguous",
    };
    match (answer, json) {
        (Resolution::Found(row), false) => row_text(line, row, b' '),
        (_, false) => {
            line.extend_from_slice(input);
            line.push(b' ');
            line.extend_from_slice(status.as_bytes());
            line.push(b'\n');
        }
        (_, true) => {
            line.extend_from_slice(b"{\"input\":");
            json_string(line, input);
            line.extend_from_slice(b",\"status\":\"");
            line.extend_from_slice(status.as_bytes());
            line.push(b'"');
            if let Resolution::Found(row) = answer {
                line.push(b',');
                row_json_fields(line, row);
            }
            line.extend_from_slice(b"}\n");
        }
    }
}

/// `<sha1><sep><sha256><sep><type>\n`
fn row_text(line: &mut Vec<u8>, row: &MapRow, sep: u8) {
    row.sha1.write_hex(line);
    line.push(sep);
    row.sha256.write_hex(line);
    line.push(sep);
    line.extend_from_slice(row.kind.as_str().as_bytes());
    line.push(b'\n');
}

/// `"sha1":"…","sha256":"…","type":"…"`: hex and fixed words need no
/// escaping, which is why JSON is written by hand here.
fn row_json_fields(line: &mut Vec<u8>, row: &MapRow) {
    line.extend_from_slice(b"\"sha1\":\"");
    row.sha1.write_hex(line);
    line.extend_from_slice(b"\",\"sha256\":\"");
    row.sha256.write_hex(line);
    line.extend_from_slice(b"\",\"type\":\"");
    line.extend_from_slice(row.kind.as_str().as_bytes());
    line.push(b'"');
}

/// A JSON string of arbitrary input bytes (invalid UTF-8 becomes U+FFFD).
fn json_string(line: &mut Vec<u8>, input: &[u8]) {
    line.push(b'"');
    for c in String::from_utf8_lossy(input).chars() {
        match c {
            '"' => line.extend_from_slice(b"\\\""),
            '\\' => line.extend_from_slice(b"\\\\"),
            c if (c as u32) < 0x20 => {
                line.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
            }
            c => {
                let mut utf8 = [0u8; 4];
                line.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
            }
        }
    }
    line.push(b'"');
}

/// The header of git-filter-repo's `commit-map` (`"%-40s %s\n" % ("old",
/// "new")`, the width that of an old name).
fn commit_map_header(old: HashKind) -> String {
    format!("{:<width$} new\n", "old", width = old.hex_len())
}
/// The first line git requires in `objects/loose-object-idx` (git's loose.c).
const LOOSE_OBJECT_IDX_HEADER: &str = "# loose-object-idx\n";

fn export(maps: &[IdMap], format: Format, out: &mut impl Write) -> anyhow::Result<()> {
    let direction = maps[0].direction()?;
    let header = match format {
        Format::Tsv => "sha1\tsha256\ttype\n".to_string(),
        Format::CommitMap => commit_map_header(direction.source()),
        Format::LooseObjectIdx => LOOSE_OBJECT_IDX_HEADER.to_string(),
        Format::Text | Format::Json => String::new(),
    };
    out.write_all(header.as_bytes())
        .context("writing the export")?;
    let only = (format == Format::CommitMap).then_some(ObjectKind::Commit);
    let mut line = Vec::with_capacity(256);
    let result = export_rows(maps, only, |row| {
        line.clear();
        match format {
            Format::Text => row_text(&mut line, row, b' '),
            Format::Tsv => row_text(&mut line, row, b'\t'),
            Format::Json => {
                line.push(b'{');
                row_json_fields(&mut line, row);
                line.extend_from_slice(b"}\n");
            }
            // git reads "<storage id> <compat id>": DEST's name first.
            Format::LooseObjectIdx => {
                let (source, dest) = direction.split(row.sha1, row.sha256);
                pair_line(&mut line, dest, source)
            }
            // Old, then new.
            Format::CommitMap => {
                let (source, dest) = direction.split(row.sha1, row.sha256);
                pair_line(&mut line, source, dest)
            }
        }
        out.write_all(&line)
    });
    match result {
        Ok(()) => Ok(()),
        Err(ForEachError::Io(e)) => Err(e).context("writing the export"),
        Err(ForEachError::Map(e)) => Err(e.into()),
    }
}

/// `<first> <second>\n`
fn pair_line(line: &mut Vec<u8>, first: ObjectId, second: ObjectId) {
    first.write_hex(line);
    line.push(b' ');
    second.write_hex(line);
    line.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_map_header_is_filter_repos() {
        assert_eq!(
            commit_map_header(HashKind::Sha1),
            "old                                      new\n"
        );
        assert_eq!(commit_map_header(HashKind::Sha256).len(), 64 + 5);
    }

    #[test]
    fn json_escapes_input() {
        let mut line = Vec::new();
        json_string(&mut line, b"a\"b\\c\n\xff");
        assert_eq!(line, "\"a\\\"b\\\\c\\u000a\u{fffd}\"".as_bytes());
    }
}
