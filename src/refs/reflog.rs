//! Reflogs (`logs/HEAD`, `logs/refs/**`): parse, and translate line by line.
//!
//! A line is `<old> SP <new> SP <ident> SP <time> SP <tz> [TAB <msg>] LF`
//! (git's `files_reflog_iterator` / `show_one_reflog_ent`). Only the two ids
//! are interpreted; everything after `<new>` is kept byte for byte, so the
//! ident, time and message survive translation untouched whatever they hold.

use std::path::Path;

use super::error::RefsError;
use super::mapping::Translator;
use crate::hash::{HashKind, ObjectId};

/// The reflog of one ref.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reflog {
    /// `HEAD` or the full ref name (`refs/heads/main`); the file is `logs/<name>`.
    pub name: String,
    pub entries: Vec<ReflogEntry>,
}

/// One reflog line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReflogEntry {
    pub old: ObjectId,
    pub new: ObjectId,
    /// Every byte after `<new>`: the SP, ident, time, zone, optional TAB and
    /// message, and the LF (absent only on an unterminated last line).
    pub tail: Vec<u8>,
}

/// What translating one reflog produced.
pub(crate) struct TranslatedReflog {
    pub entries: Vec<ReflogEntry>,
    pub dropped: usize,
}

/// Parses a reflog file read from `path` (named in errors with the 1-based line).
pub fn parse_reflog(
    path: &Path,
    hash: HashKind,
    content: &[u8],
) -> Result<Vec<ReflogEntry>, RefsError> {
    let hex_len = hash.hex_len();
    let mut entries = Vec::new();
    for (index, line) in content.split_inclusive(|&b| b == b'\n').enumerate() {
        let line_no = index + 1;
        let bad = |what: &str| RefsError::malformed(path, line_no, format!("reflog entry: {what}"));
        let old = line
            .get(..hex_len)
            .and_then(|hex| ObjectId::from_hex(hash, hex))
            .ok_or_else(|| bad(&format!("expected the old {hash} id")))?;
        if line.get(hex_len) != Some(&b' ') {
            return Err(bad("expected a space after the old id"));
        }
        let new_start = hex_len + 1;
        let new = line
            .get(new_start..new_start + hex_len)
            .and_then(|hex| ObjectId::from_hex(hash, hex))
            .ok_or_else(|| bad(&format!("expected the new {hash} id")))?;
        let tail = &line[new_start + hex_len..];
        // The committer ident must follow; a bare pair of ids is not a line git writes.
        if !tail.starts_with(b" ") || tail.trim_ascii().is_empty() {
            return Err(bad("expected the committer ident after the new id"));
        }
        entries.push(ReflogEntry {
            old,
            new,
            tail: tail.to_vec(),
        });
    }
    Ok(entries)
}

/// Translates the entries of `log`: both ids mapped, the all-zero id to the
/// all-zero id of the destination, and entries naming an object without a
/// mapping (pruned by gc while the reflog still mentions it) dropped.
pub(crate) fn translate_reflog(
    log: &Reflog,
    translator: &Translator<'_>,
) -> Result<TranslatedReflog, RefsError> {
    let mut out = TranslatedReflog {
        entries: Vec::with_capacity(log.entries.len()),
        dropped: 0,
    };
    for entry in &log.entries {
        let old = translator.optional(&log.name, &entry.old)?;
        let new = translator.optional(&log.name, &entry.new)?;
        let (Some(old), Some(new)) = (old, new) else {
            out.dropped += 1;
            continue;
        };
        out.entries.push(ReflogEntry {
            old,
            new,
            tail: entry.tail.clone(),
        });
    }
    Ok(out)
}

/// The reflog file of `entries`: one line each, in order.
pub(crate) fn reflog_bytes(entries: &[ReflogEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * 160);
    for entry in entries {
        entry.old.write_hex(&mut out);
        out.push(b' ');
        entry.new.write_hex(&mut out);
        out.extend_from_slice(&entry.tail);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const Z: &str = "0000000000000000000000000000000000000000";
    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    fn parse(s: &str) -> Result<Vec<ReflogEntry>, RefsError> {
        parse_reflog(Path::new("/g/logs/HEAD"), HashKind::Sha1, s.as_bytes())
    }

    #[test]
    fn parses_with_and_without_message() {
        let text = format!(
            "{Z} {A} A U Thor <a@x> 1700000000 +0100\tcommit (initial): first\n\
             {A} {B} A U Thor <a@x> 1700000001 -0500\n\
             {B} {A} Name With  Spaces <a@x> 1700000002 +0000\t\n"
        );
        let entries = parse(&text).unwrap();
        assert_eq!(entries.len(), 3);
        assert!(entries[0].old.is_null());
        assert_eq!(
            entries[0].tail,
            b" A U Thor <a@x> 1700000000 +0100\tcommit (initial): first\n"
        );
        assert_eq!(entries[1].tail, b" A U Thor <a@x> 1700000001 -0500\n");
        assert_eq!(
            entries[2].tail,
            b" Name With  Spaces <a@x> 1700000002 +0000\t\n"
        );
    }

    #[test]
    fn unterminated_last_line_is_kept_as_is() {
        let entries = parse(&format!("{A} {B} T <t> 1 +0000\tmsg")).unwrap();
        assert_eq!(entries[0].tail, b" T <t> 1 +0000\tmsg");
    }

    #[test]
    fn malformed_lines_name_path_and_line() {
        let good = format!("{A} {B} T <t> 1 +0000\tok\n");
        for (bad, want_line) in [
            (format!("{good}{A}{B} T <t> 1 +0000\n"), 2),
            (format!("{good}{good}{A} {B}\n"), 3),
            (format!("{A} xyz T <t> 1 +0000\n"), 1),
            (format!("{good}\n"), 2),
            (format!("{A} {B}\tT <t> 1 +0000\n"), 1),
        ] {
            match parse(&bad) {
                Err(RefsError::Malformed { path, line, .. }) => {
                    assert_eq!(path, Path::new("/g/logs/HEAD"));
                    assert_eq!(line, want_line, "{bad:?}");
                }
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn translation_maps_ids_keeps_tails_and_drops_unmapped() {
        let text = format!(
            "{Z} {A} T <t> 1 +0000\tcreate\n\
             {A} {B} T <t> 2 +0000\tgone\n\
             {A} {A} T <t> 3 +0000\n"
        );
        let log = Reflog {
            name: "HEAD".into(),
            entries: parse(&text).unwrap(),
        };
        let a_id = ObjectId::from_hex(HashKind::Sha1, A.as_bytes()).unwrap();
        let mapped = ObjectId::Sha256([0x33; 32]);
        let map = move |id: &ObjectId| (*id == a_id).then_some(mapped);
        let translator = Translator {
            to: HashKind::Sha256,
            map: &map,
        };
        let out = translate_reflog(&log, &translator).unwrap();
        assert_eq!((out.entries.len(), out.dropped), (2, 1));
        let m = mapped.to_hex();
        let z = HashKind::Sha256.null_id().to_hex();
        assert_eq!(
            String::from_utf8(reflog_bytes(&out.entries)).unwrap(),
            format!("{z} {m} T <t> 1 +0000\tcreate\n{m} {m} T <t> 3 +0000\n")
        );
    }
}
