//! Commit translation (docs/translation.md, "Commits"; git's
//! `convert_commit_object`):
//! header lines are handled one by one until the first empty line; `tree`
//! and `parent` ids are mapped, `mergetag` payloads are unfolded, translated
//! as tags and folded back, the known text fields are copied with their
//! continuation lines, and everything after the header is copied verbatim.

use super::error::TranslateError;
use super::tag::append_translated_tag;
use super::{IdMapper, TranslateNotes, TranslateOptions, lf_from, map_field, map_id};
use crate::hash::{HashKind, ObjectId};
use crate::object::mergetag_object_line;

/// Fields copied verbatim with their continuation lines. git matches them
/// as line prefixes, so `gpgsig` covers `gpgsig-sha256` and any future
/// `gpgsig-*`, in both directions.
const VERBATIM_PREFIXES: [&[u8]; 4] = [b"author ", b"committer ", b"encoding ", b"gpgsig"];

/// Translates a commit body into `out` (cleared first).
pub fn translate_commit(
    body: &[u8],
    from: HashKind,
    to: HashKind,
    map: &dyn IdMapper,
    opts: TranslateOptions,
    out: &mut Vec<u8>,
) -> Result<TranslateNotes, TranslateError> {
    out.clear();
    out.reserve(body.len() + 64);
    let bad = |reason: &str| TranslateError::MalformedCommit {
        reason: reason.into(),
    };
    let mut notes = TranslateNotes::default();
    let mut pos = 0;
    while pos < body.len() && body[pos] != b'\n' {
        let eol = lf_from(body, pos).ok_or_else(|| bad("header line without LF"))?;
        let (start, line) = (pos, &body[pos..eol]);
        pos = eol + 1;
        if let Some(hex) = line.strip_prefix(b"tree ").filter(|h| !h.is_empty()) {
            let id = ObjectId::from_hex(from, hex).ok_or_else(|| bad("bad tree line"))?;
            out.extend_from_slice(b"tree ");
            map_field(map, &id, from, to, "tree")?.write_hex(out);
            out.push(b'\n');
        } else if let Some(hex) = line.strip_prefix(b"parent ").filter(|h| !h.is_empty()) {
            let id = ObjectId::from_hex(from, hex).ok_or_else(|| bad("bad parent line"))?;
            out.extend_from_slice(b"parent ");
            map_field(map, &id, from, to, "parent")?.write_hex(out);
            out.push(b'\n');
        } else if let Some(first) = line.strip_prefix(b"mergetag ").filter(|h| !h.is_empty()) {
            if keeps_mergetag(first, from, to, map, opts)? {
                // Copied with its continuation lines (the loop below).
                out.extend_from_slice(&body[start..=eol]);
                notes.verbatim_mergetags += 1;
            } else {
                pos = translate_mergetag(body, pos, first, from, to, map, out)?;
            }
        } else if VERBATIM_PREFIXES.iter().any(|p| line.starts_with(p)) {
            out.extend_from_slice(&body[start..=eol]);
        } else {
            let name = line.split(|&b| b == b' ').next().unwrap_or(line);
            // A bare or empty `tree`/`parent`/`mergetag` is a damaged id line,
            // not an unknown field: copying it could smuggle an id through.
            if line[0] == b' ' || matches!(name, b"tree" | b"parent" | b"mergetag") {
                return Err(bad(&format!(
                    "malformed header line {:?}",
                    String::from_utf8_lossy(line)
                )));
            }
            let name = String::from_utf8_lossy(name).into_owned();
            if opts.strict_headers {
                return Err(TranslateError::UnknownHeader { name });
            }
            out.extend_from_slice(&body[start..=eol]);
            if !notes.unknown_headers.contains(&name) {
                notes.unknown_headers.push(name);
            }
        }
        // Continuation lines of the field, copied as they are (after a
        // mergetag there are none left).
        while pos < body.len() && body[pos] == b' ' {
            let eol = lf_from(body, pos).ok_or_else(|| bad("continuation line without LF"))?;
            out.extend_from_slice(&body[pos..=eol]);
            pos = eol + 1;
        }
    }
    out.extend_from_slice(&body[pos..]);
    Ok(notes)
}

/// Whether the `mergetag` field whose first line value is `first` is kept
/// as it is: its object has no `to` name (SOURCE lacks the tagged object),
/// or its object line already holds a `to` id (a field kept so before,
/// translated back). Only with `verbatim_mergetags`; without it such a
/// field is refused as unmapped. A first line that is not `object <id>`
/// is left to the translation, which refuses it as malformed.
fn keeps_mergetag(
    first: &[u8],
    from: HashKind,
    to: HashKind,
    map: &dyn IdMapper,
    opts: TranslateOptions,
) -> Result<bool, TranslateError> {
    let unmapped = |id| TranslateError::UnmappedId {
        field: "mergetag object",
        id,
    };
    match mergetag_object_line(first, from) {
        Some(id) if id.kind() != from => {
            opts.verbatim_mergetags.then_some(true).ok_or(unmapped(id))
        }
        Some(id) if opts.verbatim_mergetags => Ok(map_id(map, &id, from, to)?.is_none()),
        _ => Ok(false),
    }
}

/// Unfolds the `mergetag` field whose first line value is `first` and whose
/// continuation lines start at `pos`, translates it as a tag and folds it
/// back into `out`. Returns the position after the field.
fn translate_mergetag(
    body: &[u8],
    mut pos: usize,
    first: &[u8],
    from: HashKind,
    to: HashKind,
    map: &dyn IdMapper,
    out: &mut Vec<u8>,
) -> Result<usize, TranslateError> {
    let mut tag = Vec::with_capacity(first.len() + 1024);
    tag.extend_from_slice(first);
    tag.push(b'\n');
    while pos < body.len() && body[pos] == b' ' {
        let eol = lf_from(body, pos).ok_or_else(|| TranslateError::MalformedCommit {
            reason: "mergetag continuation line without LF".into(),
        })?;
        tag.extend_from_slice(&body[pos + 1..=eol]);
        pos = eol + 1;
    }
    let mut translated = Vec::with_capacity(tag.len() + 64);
    append_translated_tag(&tag, from, to, map, "mergetag object", &mut translated).map_err(
        |e| match e {
            TranslateError::MalformedTag { reason } => TranslateError::MalformedCommit {
                reason: format!("mergetag: bogus tag object: {reason}"),
            },
            other => other,
        },
    )?;
    // git's strbuf_add_lines: one SP before every line, LF completed.
    out.extend_from_slice(b"mergetag");
    for line in translated.split_inclusive(|&b| b == b'\n') {
        out.push(b' ');
        out.extend_from_slice(line);
    }
    if out.last() != Some(&b'\n') {
        out.push(b'\n');
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::ObjectKind::Commit;
    use crate::translate::test_support::{
        back, fwd, hex, id1, id2, refusal, translate, translate_with,
    };

    const WHO: &str = "author A <a@x> 1 +0000\ncommitter C <c@x> 2 +0100\n";

    /// `tree` and two `parent` lines naming ids 1, 2, 3 of one side.
    fn ids(side: fn(u8) -> ObjectId) -> String {
        let [t, p, q] = [1, 2, 3].map(|n| hex(side(n)));
        format!("tree {t}\nparent {p}\nparent {q}\n")
    }

    #[test]
    fn maps_tree_and_parents_copies_the_rest() {
        let tail = "encoding ISO-8859-1\ngpgsig -----BEGIN PGP SIGNATURE-----\n S1\n \n -----END\n\
                    gpgsig-sha256 X\n Y\n\nmessage \u{0}\n\nno final LF";
        let sha1 = format!("{}{WHO}{tail}", ids(id1));
        let sha256 = format!("{}{WHO}{tail}", ids(id2));
        assert_eq!(fwd(Commit, &sha1), sha256);
        assert_eq!(back(Commit, &sha256), sha1);
        // A commit may end right after its header.
        assert_eq!(fwd(Commit, &ids(id1)), ids(id2));
        // git copies continuation lines after any field, `tree` included.
        let odd = |side| format!("tree {}\n odd\n{WHO}\nm", hex(side));
        assert_eq!(fwd(Commit, &odd(id1(1))), odd(id2(1)));
    }

    #[test]
    fn well_known_ids_need_no_map_entry() {
        let line = |h: HashKind| {
            format!(
                "tree {}\nparent {}\n",
                hex(h.empty_tree()),
                hex(h.null_id())
            )
        };
        assert_eq!(fwd(Commit, &line(HashKind::Sha1)), line(HashKind::Sha256));
    }

    /// The embedded tag is translated by the tag rule: its SHA-1 signature
    /// moves into a nested `gpgsig` field (two-space continuation lines).
    #[test]
    fn mergetag_is_unfolded_translated_and_folded() {
        let head =
            |o| format!("mergetag object {o}\n type commit\n tag v1\n tagger T <t@x> 1 +0000\n");
        let sig_in_body = " -----BEGIN PGP SIGNATURE-----\n AAA\n -----END PGP SIGNATURE-----\n";
        let sig_in_header =
            " gpgsig -----BEGIN PGP SIGNATURE-----\n  AAA\n  -----END PGP SIGNATURE-----\n";
        let (head1, head2) = (head(hex(id1(4))), head(hex(id2(4))));
        let sha1 = format!("{}{WHO}{head1} \n msg\n{sig_in_body}\nm\n", ids(id1));
        let sha256 = format!("{}{WHO}{head2}{sig_in_header} \n msg\n\nm\n", ids(id2));
        assert_eq!(fwd(Commit, &sha1), sha256);
        assert_eq!(back(Commit, &sha256), sha1);
    }

    #[test]
    fn mergetag_refusals() {
        let unmapped = format!(
            "{}mergetag object {}\n type commit\n",
            ids(id1),
            hex(id1(42))
        );
        let want = TranslateError::UnmappedId {
            field: "mergetag object",
            id: id1(42),
        };
        assert_eq!(refusal(Commit, &unmapped, false), want);
        let o = hex(id1(4));
        for bad in [
            "mergetag object 12\n type commit\n".to_string(),
            "mergetag \n".into(),
            "mergetag object".into(),
            format!("mergetag object {o}\n type commit"),
        ] {
            let body = format!("{}{bad}", ids(id1));
            let err = refusal(Commit, &body, false);
            assert!(
                matches!(err, TranslateError::MalformedCommit { .. }),
                "{bad:?}"
            );
        }
    }

    /// A mergetag whose object has no pair is kept byte for byte (its
    /// in-body signature still covers its bytes) beside one that is
    /// translated, and translating back restores the SHA-1 commit exactly;
    /// without the option both directions refuse it as unmapped.
    #[test]
    fn unmapped_mergetag_is_kept_verbatim_only_when_asked() {
        let head =
            |o| format!("mergetag object {o}\n type commit\n tag v1\n tagger T <t@x> 1 +0000\n");
        let sig = " \n msg\n -----BEGIN PGP SIGNATURE-----\n AAA\n -----END PGP SIGNATURE-----\n";
        let moved = " gpgsig -----BEGIN PGP SIGNATURE-----\n  AAA\n  -----END PGP SIGNATURE-----\n \n msg\n";
        let kept = format!("{}{sig}", head(hex(id1(42))));
        let sha1 = format!("{}{WHO}{}{sig}{kept}\nm\n", ids(id1), head(hex(id1(4))));
        let sha256 = format!("{}{WHO}{}{moved}{kept}\nm\n", ids(id2), head(hex(id2(4))));
        let verbatim = TranslateOptions {
            verbatim_mergetags: true,
            ..TranslateOptions::default()
        };
        let (out, notes) =
            translate_with(Commit, sha1.as_bytes(), HashKind::Sha1, verbatim).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), sha256);
        assert_eq!(notes.verbatim_mergetags, 1);
        let (out, notes) =
            translate_with(Commit, sha256.as_bytes(), HashKind::Sha256, verbatim).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), sha1);
        assert_eq!(notes.verbatim_mergetags, 1);

        let unmapped = |id| TranslateError::UnmappedId {
            field: "mergetag object",
            id,
        };
        assert_eq!(refusal(Commit, &sha1, false), unmapped(id1(42)));
        let back = translate(Commit, sha256.as_bytes(), HashKind::Sha256, false);
        assert_eq!(back, Err(unmapped(id1(42))));
        // An object line of the other hash in a SHA-1 commit: the same.
        let other = format!(
            "{}mergetag object {}\n type commit\n",
            ids(id1),
            hex(id2(42))
        );
        assert_eq!(refusal(Commit, &other, false), unmapped(id2(42)));
        let (out, _) = translate_with(Commit, other.as_bytes(), HashKind::Sha1, verbatim).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            other.replace(&ids(id1), &ids(id2))
        );
    }

    #[test]
    fn unknown_headers_are_copied_and_noted_or_refused() {
        let src = format!(
            "{}{WHO}change-id zzz\n cont\nvanity 1\nchange-id y\n\nm\n",
            ids(id1)
        );
        let (out, notes) = translate(Commit, src.as_bytes(), HashKind::Sha1, false).unwrap();
        assert_eq!(out, src.replace(&ids(id1), &ids(id2)).as_bytes());
        assert_eq!(notes.unknown_headers, ["change-id", "vanity"]);
        let want = TranslateError::UnknownHeader {
            name: "change-id".into(),
        };
        assert_eq!(refusal(Commit, &src, true), want);
        // Known fields (any `gpgsig*`) and the message never count as unknown.
        let known = format!(
            "{}{WHO}encoding x\ngpgsigfoo\n\nchange-id in message\n",
            ids(id1)
        );
        let (_, notes) = translate(Commit, known.as_bytes(), HashKind::Sha1, true).unwrap();
        assert!(notes.unknown_headers.is_empty());
    }

    #[test]
    fn malformed_headers_are_refused() {
        let t = hex(id1(1));
        let cases = [
            format!("tree {t}"),                // last header line without LF
            format!("tree {t}0\n"),             // too long
            format!("tree {}\n", &t[1..]),      // too short
            format!("tree {}g\n", &t[1..]),     // not hex
            "tree \n".to_string(),              // empty id
            format!("tree {t}\nparent 0123\n"), // bad parent
            format!("tree {t}\nparent\n"),      // bare parent
            format!(" tree {t}\n"),             // continuation first
            format!("tree {t}\n{WHO} cont"),    // continuation without LF
            format!("tree {}\n", hex(id2(1))),  // SHA-256 id in a SHA-1 commit
        ];
        for body in &cases {
            let err = refusal(Commit, body, false);
            assert!(
                matches!(err, TranslateError::MalformedCommit { .. }),
                "{body:?}"
            );
        }
        let unmapped = format!("tree {}\n", hex(id1(42)));
        let want = TranslateError::UnmappedId {
            field: "tree",
            id: id1(42),
        };
        assert_eq!(refusal(Commit, &unmapped, false), want);
        let unmapped = format!("tree {t}\nparent {}\n", hex(id1(43)));
        let want = TranslateError::UnmappedId {
            field: "parent",
            id: id1(43),
        };
        assert_eq!(refusal(Commit, &unmapped, false), want);
    }
}
