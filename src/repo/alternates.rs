//! `objects/info/alternates`: the other object directories a repository
//! borrows objects from, read as git reads them, and written for a DEST
//! that shares a pool's objects.
//!
//! git's rules (`prepare_alt_odb` and `link_alt_odb_entries`): the file
//! holds one entry per line; a line starting with `#` is a comment and an
//! empty line is skipped; an entry starting with `"` is a C-quoted path
//! (when the quoting is broken, the line is taken as it is); a relative
//! entry is resolved against the objects directory whose file lists it; the
//! path is resolved through symlinks and loses its trailing slashes; the
//! repository's own objects directory and a directory already listed are
//! skipped (which also ends cycles); each new directory's own alternates
//! are read at once, depth first, up to 5 levels below the repository's
//! file. git ignores, with an error message, an entry that names no
//! directory and files nested deeper; a conversion refuses both instead,
//! since the objects git cannot reach through them may be missing from
//! what it converts.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::error::SourceError;

/// The alternates file of an objects directory.
pub fn alternates_file(objects_dir: &Path) -> PathBuf {
    objects_dir.join("info").join("alternates")
}

/// The deepest alternates file git reads: the repository's own is at
/// depth 0 (`link_alt_odb_entries` stops above 5).
const MAX_DEPTH: usize = 5;

/// Every object directory `objects_dir` borrows from, directly or through
/// other alternates, in git's order (depth first, in file order), each as
/// an absolute path with symlinks resolved. `objects_dir` itself is not
/// listed.
pub fn alternate_object_dirs(objects_dir: &Path) -> Result<Vec<PathBuf>, SourceError> {
    let own = std::fs::canonicalize(objects_dir).map_err(|e| SourceError::Io {
        path: objects_dir.to_path_buf(),
        source: e,
    })?;
    let mut found = Vec::new();
    read_file(&own, &own, 0, &mut found)?;
    Ok(found)
}

/// Links the entries of `base`'s alternates file (at `depth`) into `found`.
fn read_file(
    own: &Path,
    base: &Path,
    depth: usize,
    found: &mut Vec<PathBuf>,
) -> Result<(), SourceError> {
    let file = alternates_file(base);
    let text = match std::fs::read(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(SourceError::Io {
                path: file,
                source: e,
            });
        }
    };
    let entries = parse_entries(&text);
    if entries.is_empty() {
        return Ok(());
    }
    if depth > MAX_DEPTH {
        return Err(unusable(
            &file,
            format!(
                "alternates are nested more than {MAX_DEPTH} levels deep here; git ignores this \
                 file, so the objects it lends may be missing: make the chain shorter"
            ),
        ));
    }
    for entry in entries {
        let entry = Path::new(OsStr::from_bytes(&entry));
        let joined = if entry.is_absolute() {
            entry.to_path_buf()
        } else {
            base.join(entry)
        };
        // canonicalize: git's strbuf_realpath, which also drops trailing
        // slashes; it fails where the path does not exist.
        let dir = match std::fs::canonicalize(&joined) {
            Ok(dir) if dir.is_dir() => dir,
            _ => {
                return Err(unusable(
                    &file,
                    format!(
                        "it names {}, which is not a directory; git skips such an entry, so \
                         objects it should lend may be missing: fix or remove the line",
                        joined.display()
                    ),
                ));
            }
        };
        if dir == own || found.contains(&dir) {
            continue;
        }
        found.push(dir.clone());
        read_file(own, &dir, depth + 1, found)?;
    }
    Ok(())
}

fn unusable(file: &Path, reason: String) -> SourceError {
    SourceError::Unsupported {
        path: file.to_path_buf(),
        reason,
    }
}

/// The non-empty entries of an alternates file, unquoted, as git's
/// `parse_alt_odb_entry` splits them.
fn parse_entries(text: &[u8]) -> Vec<Vec<u8>> {
    let mut entries = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        let (entry, used) = if rest[0] == b'#' {
            (Vec::new(), line_end)
        } else if let Some((unquoted, used)) = rest.strip_prefix(b"\"").and_then(c_unquote) {
            (unquoted, used + 1)
        } else {
            (rest[..line_end].to_vec(), line_end)
        };
        // The character after the entry is taken as its separator.
        at += (used + 1).min(rest.len());
        if !entry.is_empty() {
            entries.push(entry);
        }
    }
    entries
}

/// git's `unquote_c_style` after the opening quote: the unquoted bytes and
/// how many bytes of `quoted` the closing quote ends, or `None` when the
/// quoting is broken (no closing quote, an unknown escape).
fn c_unquote(quoted: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        match *quoted.get(i)? {
            b'"' => return Some((out, i + 1)),
            b'\\' => {
                let c = *quoted.get(i + 1)?;
                i += 2;
                out.push(match c {
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 0x0b,
                    b'\\' | b'"' => c,
                    b'0'..=b'3' => {
                        let digit = |k: usize| match quoted.get(k) {
                            Some(&d @ b'0'..=b'7') => Some(d - b'0'),
                            _ => None,
                        };
                        let (mid, low) = (digit(i)?, digit(i + 1)?);
                        i += 2;
                        ((c - b'0') << 6) | (mid << 3) | low
                    }
                    _ => return None,
                });
            }
            0 => return None,
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
}

/// The alternates file naming `objects_dir` (absolute) alone: the path as
/// it is, or C-quoted when a byte of it would end or confuse the line.
pub fn render(objects_dir: &Path) -> Vec<u8> {
    let raw = objects_dir.as_os_str().as_bytes();
    let needs_quotes = raw
        .iter()
        .any(|&b| b < 0x20 || b == 0x7f || b == b'"' || b == b'\\');
    let mut out = Vec::with_capacity(raw.len() + 3);
    if needs_quotes {
        out.push(b'"');
        for &b in raw {
            match b {
                b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
                b if b < 0x20 || b == 0x7f => {
                    out.extend_from_slice(format!("\\{b:03o}").as_bytes())
                }
                b => out.push(b),
            }
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(raw);
    }
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(text: &str) -> Vec<String> {
        parse_entries(text.as_bytes())
            .into_iter()
            .map(|e| String::from_utf8(e).unwrap())
            .collect()
    }

    #[test]
    fn comments_and_empty_lines_are_skipped() {
        assert_eq!(
            entries("# a comment\n\n/abs/objects\n../rel/objects\n\n"),
            ["/abs/objects", "../rel/objects"]
        );
        assert_eq!(entries("/no/newline"), ["/no/newline"]);
        // Only a leading '#' makes a comment; spaces are part of a path.
        assert_eq!(entries(" # not a comment\n"), [" # not a comment"]);
    }

    #[test]
    fn quoted_entries_are_unquoted_and_broken_quoting_is_taken_as_is() {
        assert_eq!(entries("\"/a\\nb\\\"c\\101\"\n/d\n"), ["/a\nb\"cA", "/d"]);
        assert_eq!(entries("\"/unterminated\n/e\n"), ["\"/unterminated", "/e"]);
        assert_eq!(entries("\"/bad\\q\"\n"), ["\"/bad\\q\""]);
    }

    #[test]
    fn render_round_trips_through_the_parser() {
        for path in [
            "/plain/objects",
            "/with \"quote\"/objects",
            "/new\nline/objects",
        ] {
            let rendered = render(Path::new(path));
            assert_eq!(entries(std::str::from_utf8(&rendered).unwrap()), [path]);
        }
        assert_eq!(render(Path::new("/plain/objects")), b"/plain/objects\n");
    }

    fn objects_dir(root: &Path, name: &str) -> PathBuf {
        let dir = root.join(name).join("objects");
        std::fs::create_dir_all(dir.join("info")).unwrap();
        std::fs::canonicalize(dir).unwrap()
    }

    fn lend(from: &Path, text: &str) {
        std::fs::write(alternates_file(from), text).unwrap();
    }

    #[test]
    fn chains_are_followed_depth_first_relative_to_the_listing_dir() {
        let root = tempfile::tempdir().unwrap();
        let (fork, mid, pool, other) = (
            objects_dir(root.path(), "fork"),
            objects_dir(root.path(), "mid"),
            objects_dir(root.path(), "pool"),
            objects_dir(root.path(), "other"),
        );
        lend(&fork, &format!("../../mid/objects\n{}\n", other.display()));
        lend(&mid, "../../pool/objects/\n");
        assert_eq!(alternate_object_dirs(&fork).unwrap(), [mid, pool, other]);
    }

    #[test]
    fn cycles_duplicates_and_the_own_dir_are_skipped() {
        let root = tempfile::tempdir().unwrap();
        let (a, b) = (objects_dir(root.path(), "a"), objects_dir(root.path(), "b"));
        lend(
            &a,
            &format!("{}\n{}\n{}/\n", b.display(), a.display(), b.display()),
        );
        lend(&b, &format!("{}\n", a.display()));
        assert_eq!(alternate_object_dirs(&a).unwrap(), [b]);
    }

    #[test]
    fn a_missing_directory_and_too_deep_a_chain_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let fork = objects_dir(root.path(), "fork");
        lend(&fork, "../../gone/objects\n");
        let err = alternate_object_dirs(&fork).unwrap_err().to_string();
        assert!(
            err.contains("gone/objects") && err.contains("alternates"),
            "{err}"
        );

        let dirs: Vec<PathBuf> = (0..8)
            .map(|i| objects_dir(root.path(), &format!("level{i}")))
            .collect();
        for pair in dirs.windows(2) {
            lend(&pair[0], &format!("{}\n", pair[1].display()));
        }
        // level0's file is at depth 0, level6's at depth 6: too deep.
        let err = alternate_object_dirs(&dirs[0]).unwrap_err().to_string();
        assert!(err.contains("level6"), "{err}");
        lend(&dirs[6], "# nothing here\n");
        assert_eq!(alternate_object_dirs(&dirs[0]).unwrap(), dirs[1..7]);
    }
}
