//! What a single ref holds, and the parser for one-value ref files (loose
//! refs and `HEAD`), mirroring git's `parse_loose_ref_contents` in
//! `refs/files-backend.c`.

use std::path::Path;

use super::error::RefsError;
use crate::hash::{HashKind, ObjectId};

/// The value of a ref: an object id, or the name of another ref.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefTarget {
    /// `<hex> LF`: names an object.
    Direct(ObjectId),
    /// `ref: <name> LF`: follows another ref; no id, nothing to translate.
    Symbolic(String),
}

impl RefTarget {
    /// The object id, for direct refs.
    pub fn id(&self) -> Option<ObjectId> {
        match self {
            RefTarget::Direct(id) => Some(*id),
            RefTarget::Symbolic(_) => None,
        }
    }

    /// The exact bytes git writes for this value in a loose ref file or
    /// `HEAD` (`write_ref_to_lockfile` / `create_symref_lock`).
    pub fn file_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(80);
        match self {
            RefTarget::Direct(id) => id.write_hex(&mut out),
            RefTarget::Symbolic(name) => {
                out.extend_from_slice(b"ref: ");
                out.extend_from_slice(name.as_bytes());
            }
        }
        out.push(b'\n');
        out
    }
}

/// Parses the content of a loose ref file or `HEAD`.
///
/// Like git: surrounding whitespace is ignored, `ref:` may be followed by any
/// amount of whitespace, and after the hex id anything separated by
/// whitespace is tolerated (and dropped: it carries no meaning for git).
pub fn parse_ref_content(
    path: &Path,
    hash: HashKind,
    content: &[u8],
) -> Result<RefTarget, RefsError> {
    let text = content.trim_ascii_end();
    if let Some(rest) = text.strip_prefix(b"ref:") {
        return parse_symref_target(path, rest).map(RefTarget::Symbolic);
    }
    let hex_len = hash.hex_len();
    let (hex, rest) = text.split_at(hex_len.min(text.len()));
    let id = ObjectId::from_hex(hash, hex).ok_or_else(|| {
        RefsError::malformed(path, 1, format!("expected `ref: <name>` or a {hash} id"))
    })?;
    if rest.first().is_some_and(|b| !b.is_ascii_whitespace()) {
        return Err(RefsError::malformed(
            path,
            1,
            format!("junk after the {hash} id"),
        ));
    }
    Ok(RefTarget::Direct(id))
}

/// The target of a `ref:` line, given the bytes after `ref:`.
pub(crate) fn parse_symref_target(path: &Path, after_prefix: &[u8]) -> Result<String, RefsError> {
    let name = after_prefix.trim_ascii();
    if name.is_empty() {
        return Err(RefsError::malformed(
            path,
            1,
            "symbolic ref without a target",
        ));
    }
    let name = std::str::from_utf8(name)
        .map_err(|_| RefsError::malformed(path, 1, "symbolic ref target is not UTF-8"))?;
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

    fn parse(content: &str) -> Result<RefTarget, RefsError> {
        parse_ref_content(
            Path::new("refs/heads/x"),
            HashKind::Sha1,
            content.as_bytes(),
        )
    }

    #[test]
    fn direct_and_symbolic() {
        assert_eq!(
            parse(&format!("{HEX}\n")).unwrap(),
            RefTarget::Direct(HashKind::Sha1.empty_tree())
        );
        assert_eq!(
            parse("ref: refs/heads/main\n").unwrap(),
            RefTarget::Symbolic("refs/heads/main".into())
        );
        assert_eq!(
            parse("ref:\trefs/heads/a  \n").unwrap(),
            RefTarget::Symbolic("refs/heads/a".into())
        );
        // git tolerates whitespace-separated trailing data after the id
        assert!(parse(&format!("{HEX}\textra\n")).is_ok());
    }

    #[test]
    fn round_trips_file_bytes() {
        let t = RefTarget::Symbolic("refs/heads/main".into());
        assert_eq!(t.file_bytes(), b"ref: refs/heads/main\n");
        let d = RefTarget::Direct(HashKind::Sha1.empty_tree());
        assert_eq!(d.file_bytes(), format!("{HEX}\n").as_bytes());
    }

    #[test]
    fn malformed_names_path_and_line() {
        for bad in ["", "ref: \n", "xyz\n", &format!("{HEX}z\n"), &HEX[..39]] {
            match parse(bad) {
                Err(RefsError::Malformed { path, line, .. }) => {
                    assert_eq!(path, Path::new("refs/heads/x"));
                    assert_eq!(line, 1);
                }
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }
}
