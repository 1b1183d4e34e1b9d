//! Pseudo-refs: the files at the top of the git directory that name objects
//! outside the ref namespace (`ORIG_HEAD`, `FETCH_HEAD`, `MERGE_HEAD`, ...).
//!
//! Most hold one `<hex> LF`; `MERGE_HEAD` holds one per merged head and
//! `FETCH_HEAD` one `<hex> TAB [not-for-merge] TAB <description> LF` per
//! fetched ref. Each line is therefore kept as its leading id plus the
//! untouched rest of the line.

use std::path::Path;

use super::RefTarget;
use super::error::RefsError;
use super::mapping::Translator;
use super::target::parse_symref_target;
use crate::hash::{HashKind, ObjectId};

/// The pseudo-refs carried over, in the order they are read and written.
/// `BISECT_*` files other than these hold no ids of their own (terms, paths,
/// the start branch) or are a log (`BISECT_LOG`) that marks a bisection in
/// progress, which the orchestrator refuses anyway.
pub const PSEUDO_REFS: &[&str] = &[
    "ORIG_HEAD",
    "FETCH_HEAD",
    "MERGE_HEAD",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "REBASE_HEAD",
    "AUTO_MERGE",
    "BISECT_HEAD",
    "BISECT_EXPECTED_REV",
];

/// One pseudo-ref file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PseudoRef {
    pub name: String,
    pub content: PseudoContent,
}

/// What a pseudo-ref file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PseudoContent {
    /// `ref: <name>`: nothing to translate (git can write these with
    /// `update-ref --no-deref`-style plumbing; rare but legal).
    Symbolic(String),
    /// Lines each starting with an id (possibly none: an empty `FETCH_HEAD`).
    Lines(Vec<IdLine>),
}

/// A line that starts with an object id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdLine {
    pub id: ObjectId,
    /// The bytes after the id, LF included (e.g. `\t\tbranch 'main' of ...\n`).
    pub tail: Vec<u8>,
}

impl PseudoRef {
    /// The ids this pseudo-ref names.
    pub fn ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        let lines = match &self.content {
            PseudoContent::Symbolic(_) => &[][..],
            PseudoContent::Lines(lines) => &lines[..],
        };
        lines.iter().map(|line| line.id)
    }
}

/// Parses a pseudo-ref file read from `path`.
pub fn parse_pseudo_ref(
    path: &Path,
    hash: HashKind,
    content: &[u8],
) -> Result<PseudoContent, RefsError> {
    if let Some(rest) = content.strip_prefix(b"ref:") {
        return parse_symref_target(path, rest).map(PseudoContent::Symbolic);
    }
    let hex_len = hash.hex_len();
    let mut lines = Vec::new();
    for (index, line) in content.split_inclusive(|&b| b == b'\n').enumerate() {
        let id = line
            .get(..hex_len)
            .and_then(|hex| ObjectId::from_hex(hash, hex))
            .ok_or_else(|| {
                RefsError::malformed(path, index + 1, format!("expected a {hash} id"))
            })?;
        let tail = &line[hex_len..];
        if tail.first().is_some_and(|b| !b.is_ascii_whitespace()) {
            return Err(RefsError::malformed(
                path,
                index + 1,
                format!("junk after the {hash} id"),
            ));
        }
        lines.push(IdLine {
            id,
            tail: tail.to_vec(),
        });
    }
    Ok(PseudoContent::Lines(lines))
}

impl PseudoContent {
    /// The file's bytes.
    pub fn file_bytes(&self) -> Vec<u8> {
        match self {
            PseudoContent::Symbolic(name) => RefTarget::Symbolic(name.clone()).file_bytes(),
            PseudoContent::Lines(lines) => {
                let mut out = Vec::with_capacity(lines.len() * 80);
                for line in lines {
                    line.id.write_hex(&mut out);
                    out.extend_from_slice(&line.tail);
                }
                out
            }
        }
    }
}

/// The translated content, or `None` if any id has no mapping: a
/// pseudo-ref with one line rewritten and another stale would mislead git
/// (e.g. a `MERGE_HEAD` missing one parent), so it is dropped whole.
pub(crate) fn translate_pseudo_ref(
    pseudo: &PseudoRef,
    translator: &Translator<'_>,
) -> Result<Option<PseudoContent>, RefsError> {
    match &pseudo.content {
        PseudoContent::Symbolic(name) => Ok(Some(PseudoContent::Symbolic(name.clone()))),
        PseudoContent::Lines(lines) => {
            let mut out = Vec::with_capacity(lines.len());
            for line in lines {
                let Some(id) = translator.optional(&pseudo.name, &line.id)? else {
                    return Ok(None);
                };
                out.push(IdLine {
                    id,
                    tail: line.tail.clone(),
                });
            }
            Ok(Some(PseudoContent::Lines(out)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    fn parse(s: &str) -> Result<PseudoContent, RefsError> {
        parse_pseudo_ref(Path::new("/g/FETCH_HEAD"), HashKind::Sha1, s.as_bytes())
    }

    #[test]
    fn fetch_head_translates_leading_id_only() {
        let text = format!(
            "{A}\t\tbranch 'main' of https://example.org/r\n{B}\tnot-for-merge\tbranch 'dev' of https://example.org/r\n"
        );
        let pseudo = PseudoRef {
            name: "FETCH_HEAD".into(),
            content: parse(&text).unwrap(),
        };
        assert_eq!(pseudo.ids().count(), 2);
        let map = |id: &ObjectId| Some(ObjectId::Sha256([id.as_bytes()[0]; 32]));
        let translator = Translator {
            to: HashKind::Sha256,
            map: &map,
        };
        let translated = translate_pseudo_ref(&pseudo, &translator).unwrap().unwrap();
        let out = String::from_utf8(translated.file_bytes()).unwrap();
        let (a, b) = ("11".repeat(32), "22".repeat(32));
        assert_eq!(
            out,
            format!(
                "{a}\t\tbranch 'main' of https://example.org/r\n{b}\tnot-for-merge\tbranch 'dev' of https://example.org/r\n"
            )
        );
    }

    #[test]
    fn unmapped_line_drops_the_whole_file() {
        let pseudo = PseudoRef {
            name: "MERGE_HEAD".into(),
            content: parse(&format!("{A}\n{B}\n")).unwrap(),
        };
        let map = |id: &ObjectId| (id.as_bytes()[0] == 0x11).then_some(ObjectId::Sha256([1; 32]));
        let translator = Translator {
            to: HashKind::Sha256,
            map: &map,
        };
        assert_eq!(translate_pseudo_ref(&pseudo, &translator).unwrap(), None);
    }

    #[test]
    fn empty_symbolic_and_malformed() {
        assert_eq!(parse("").unwrap(), PseudoContent::Lines(vec![]));
        assert_eq!(
            parse("ref: refs/heads/x\n").unwrap(),
            PseudoContent::Symbolic("refs/heads/x".into())
        );
        match parse(&format!("{A}\nnope\n")) {
            Err(RefsError::Malformed { line: 2, .. }) => {}
            other => panic!("{other:?}"),
        }
        match parse(&format!("{A}x\n")) {
            Err(RefsError::Malformed { line: 1, .. }) => {}
            other => panic!("{other:?}"),
        }
    }
}
