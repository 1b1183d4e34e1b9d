//! `packed-refs`: parse and serialise, mirroring git's
//! `refs/packed-backend.c` (file format in `Documentation/gitformat-*` and
//! the comment above `packed_refs_header`).
//!
//! ```text
//! # pack-refs with: peeled fully-peeled sorted LF      (optional header)
//! <hex> SP <refname> LF
//! ^<peeled hex> LF                                     (optional, after an annotated tag)
//! ```
//!
//! The parser is strict (every line must be one of these shapes and end in
//! LF), so serialising a parsed file reproduces it byte for byte; only the
//! ids change on translation.

use std::path::Path;

use super::error::RefsError;
use crate::hash::{HashKind, ObjectId};

/// Prefix of the optional first line, which lists the file's traits.
const HEADER_PREFIX: &[u8] = b"# pack-refs with:";

/// The parsed content of a `packed-refs` file, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedRefs {
    /// The header line verbatim, LF included; `None` if the file had none.
    pub header: Option<Vec<u8>>,
    pub entries: Vec<PackedRef>,
}

/// One ref of `packed-refs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedRef {
    pub name: String,
    pub id: ObjectId,
    /// The object an annotated tag finally points at (the `^` line).
    pub peeled: Option<ObjectId>,
}

impl PackedRefs {
    /// Whether the header declares the `sorted` trait. git then binary-searches
    /// the file without checking, so a writer must keep entries sorted by name.
    pub fn is_sorted(&self) -> bool {
        self.header.as_deref().is_some_and(|h| {
            h.strip_prefix(HEADER_PREFIX).is_some_and(|traits| {
                traits
                    .split(|b| b.is_ascii_whitespace())
                    .any(|t| t == b"sorted")
            })
        })
    }

    /// Parses `content`, read from `path` (named in errors with the 1-based line).
    pub fn parse(path: &Path, hash: HashKind, content: &[u8]) -> Result<Self, RefsError> {
        let mut header = None;
        let mut entries: Vec<PackedRef> = Vec::new();
        let mut rest = content;
        let mut line_no = 0;
        while !rest.is_empty() {
            line_no += 1;
            let Some(end) = rest.iter().position(|&b| b == b'\n') else {
                return Err(RefsError::malformed(path, line_no, "unterminated line"));
            };
            let (line, tail) = (&rest[..end], &rest[end + 1..]);
            if line_no == 1 && line.starts_with(HEADER_PREFIX) {
                header = Some(rest[..=end].to_vec());
            } else if let Some(peeled_hex) = line.strip_prefix(b"^") {
                let peeled = ObjectId::from_hex(hash, peeled_hex).ok_or_else(|| {
                    RefsError::malformed(path, line_no, format!("bad {hash} id on peeled line"))
                })?;
                match entries.last_mut() {
                    Some(last) if last.peeled.is_none() => last.peeled = Some(peeled),
                    _ => {
                        return Err(RefsError::malformed(
                            path,
                            line_no,
                            "peeled line does not follow a ref line",
                        ));
                    }
                }
            } else {
                entries.push(parse_ref_line(path, hash, line_no, line)?);
            }
            rest = tail;
        }
        Ok(PackedRefs { header, entries })
    }

    /// Serialises in git's format: header verbatim, entries in the given order.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.header.clone().unwrap_or_default();
        for entry in &self.entries {
            entry.id.write_hex(&mut out);
            out.push(b' ');
            out.extend_from_slice(entry.name.as_bytes());
            out.push(b'\n');
            if let Some(peeled) = entry.peeled {
                out.push(b'^');
                peeled.write_hex(&mut out);
                out.push(b'\n');
            }
        }
        out
    }
}

fn parse_ref_line(
    path: &Path,
    hash: HashKind,
    line_no: usize,
    line: &[u8],
) -> Result<PackedRef, RefsError> {
    let hex_len = hash.hex_len();
    let id = line
        .get(..hex_len)
        .and_then(|hex| ObjectId::from_hex(hash, hex))
        .ok_or_else(|| {
            RefsError::malformed(path, line_no, format!("expected `<{hash} id> <refname>`"))
        })?;
    let name = match line.get(hex_len..) {
        Some([b' ', name @ ..]) if !name.is_empty() => name,
        _ => {
            return Err(RefsError::malformed(
                path,
                line_no,
                "expected a space and a refname after the id",
            ));
        }
    };
    // git's check_refname_format forbids these; seeing one means the line
    // is not what it seems (a stray space, a CR from an editor).
    if name.iter().any(|&b| b <= b' ' || b == 0x7f) {
        return Err(RefsError::malformed(
            path,
            line_no,
            "refname contains whitespace or a control character",
        ));
    }
    let name = std::str::from_utf8(name)
        .map_err(|_| RefsError::malformed(path, line_no, "refname is not UTF-8"))?;
    Ok(PackedRef {
        name: name.to_string(),
        id,
        peeled: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    fn parse(s: &str) -> Result<PackedRefs, RefsError> {
        PackedRefs::parse(Path::new("/g/packed-refs"), HashKind::Sha1, s.as_bytes())
    }

    fn line_of(err: RefsError) -> usize {
        match err {
            RefsError::Malformed { path, line, .. } => {
                assert_eq!(path, Path::new("/g/packed-refs"));
                line
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn parses_header_entries_and_peeled_lines_and_round_trips() {
        let text = format!(
            "# pack-refs with: peeled fully-peeled sorted \n{A} refs/heads/main\n{B} refs/tags/v1\n^{A}\n"
        );
        let packed = parse(&text).unwrap();
        assert!(packed.is_sorted());
        assert_eq!(packed.entries.len(), 2);
        assert_eq!(packed.entries[0].name, "refs/heads/main");
        assert_eq!(packed.entries[0].peeled, None);
        assert_eq!(packed.entries[1].peeled, Some(packed.entries[0].id));
        assert_eq!(packed.to_bytes(), text.as_bytes());
    }

    #[test]
    fn header_is_optional_and_empty_file_is_fine() {
        let packed = parse(&format!("{A} refs/heads/x\n")).unwrap();
        assert_eq!(packed.header, None);
        assert!(!packed.is_sorted());
        assert!(parse("").unwrap().entries.is_empty());
    }

    #[test]
    fn malformed_lines_name_their_line() {
        let header = "# pack-refs with: peeled \n";
        assert_eq!(
            line_of(parse(&format!("{header}{A} refs/heads/x\nnot a ref\n")).unwrap_err()),
            3
        );
        assert_eq!(line_of(parse(&format!("{header}^{A}\n")).unwrap_err()), 2);
        assert_eq!(
            line_of(parse(&format!("{A} refs/x\n^{A}\n^{B}\n")).unwrap_err()),
            3
        );
        assert_eq!(line_of(parse(&format!("{A} refs/heads/x")).unwrap_err()), 1);
        assert_eq!(line_of(parse(&format!("{A}\n")).unwrap_err()), 1);
        assert_eq!(line_of(parse(&format!("{A}  \n")).unwrap_err()), 1);
        assert_eq!(line_of(parse(&format!("{A}\trefs/x\n")).unwrap_err()), 1);
        // a header anywhere but the first line is not a header
        assert_eq!(
            line_of(parse(&format!("{A} refs/x\n{header}")).unwrap_err()),
            2
        );
    }
}
