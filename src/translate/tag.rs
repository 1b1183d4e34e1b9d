//! Tag translation (docs/translation.md, "Tags"; git's `convert_tag_object`): map
//! the `object` line, then swap the signatures so the in-body one always
//! belongs to the hash that names the object and the other algorithm's
//! lives in a `gpgsig`/`gpgsig-sha256` header field.
//!
//! git's quirks are reproduced on purpose, because the SHA-256 name must
//! equal git's: other `gpgsig*` header lines are dropped, a signature
//! without final LF swallows the empty line, and the header end is found
//! with a C string search (a NUL before it hides it), likewise the inserted
//! signature stops at its first NUL.

use super::error::TranslateError;
use super::{IdMapper, lf_from, map_field};
use crate::hash::{HashKind, ObjectId};

/// Line starts that open an in-body signature (git's `get_format_by_sig`).
pub const SIGNATURE_STARTS: [&[u8]; 4] = [
    b"-----BEGIN PGP SIGNATURE-----",
    b"-----BEGIN PGP MESSAGE-----",
    b"-----BEGIN SIGNED MESSAGE-----",
    b"-----BEGIN SSH SIGNATURE-----",
];

/// Translates a tag body into `out` (cleared first).
pub fn translate_tag(
    body: &[u8],
    from: HashKind,
    to: HashKind,
    map: &dyn IdMapper,
    out: &mut Vec<u8>,
) -> Result<(), TranslateError> {
    out.clear();
    append_translated_tag(body, from, to, map, "object", out)
}

/// The header field that holds a signature over the `hash` form.
fn signature_field(hash: HashKind) -> &'static [u8] {
    match hash {
        HashKind::Sha1 => b"gpgsig",
        HashKind::Sha256 => b"gpgsig-sha256",
    }
}

/// Appends the translation of the tag `body` to `out`; also used for the
/// tag embedded in a commit's `mergetag` field (`field` names the id in an
/// unmapped-id error). The tag starts at the current end of `out`.
pub(super) fn append_translated_tag(
    body: &[u8],
    from: HashKind,
    to: HashKind,
    map: &dyn IdMapper,
    field: &'static str,
    out: &mut Vec<u8>,
) -> Result<(), TranslateError> {
    let start = out.len();
    let line_len = 7 + from.hex_len();
    let bogus = |reason: &str| TranslateError::MalformedTag {
        reason: reason.into(),
    };
    if body.len() <= line_len || !body.starts_with(b"object ") || body[line_len] != b'\n' {
        return Err(bogus("first line is not \"object <id>\""));
    }
    let id = ObjectId::from_hex(from, &body[7..line_len]).ok_or_else(|| bogus("bad object id"))?;
    let mapped = map_field(map, &id, from, to, field)?;
    let rest = &body[line_len + 1..];

    // The in-body signature starts at the last line that opens one.
    let sig_start = line_starts(rest)
        .filter(|&i| SIGNATURE_STARTS.iter().any(|s| rest[i..].starts_with(s)))
        .last()
        .unwrap_or(rest.len());
    let (payload, body_sig) = rest.split_at(sig_start);

    out.extend_from_slice(b"object ");
    mapped.write_hex(out);
    out.push(b'\n');
    let header_sig = split_header_signature(payload, signature_field(to), out);
    if !body_sig.is_empty() {
        insert_header_signature(out, start, body_sig, signature_field(from));
    }
    out.extend_from_slice(&header_sig);
    Ok(())
}

/// The other tag `body` (a `from`-side tag) may be the translation of:
/// one whose in-body signature had no final LF. Moving such a signature
/// into a header field, git lets its last line swallow the empty line
/// that ends the header (`add_header_signature`), so the field of the
/// `to` hash's signature is then followed by the message instead of by an
/// empty line, and translating back gives the signature an LF and loses
/// the empty line (docs/translation.md, "Round trips"). This gives the tag
/// with both restored into `out`, or `false` (and `out` untouched) when
/// the field is followed by the empty line. Which of the two translations
/// was the original only a name known beforehand can tell (the map of an
/// earlier conversion): the caller keeps whichever hashes to it.
pub fn translate_tag_with_unterminated_signature(
    body: &[u8],
    from: HashKind,
    to: HashKind,
    map: &dyn IdMapper,
    out: &mut Vec<u8>,
) -> Result<bool, TranslateError> {
    let Some(end) = signature_field_end(body, signature_field(to)) else {
        return Ok(false);
    };
    if body.get(end) == Some(&b'\n') {
        return Ok(false);
    }
    let restored = [&body[..end], b"\n", &body[end..]].concat();
    translate_tag(&restored, from, to, map, out)?;
    if out.last() == Some(&b'\n') {
        out.pop();
    }
    Ok(true)
}

/// Where the header field `name` of a tag ends (after its last
/// continuation line), if the header, which ends at the first empty line,
/// holds it.
fn signature_field_end(body: &[u8], name: &[u8]) -> Option<usize> {
    let mut lines = line_starts(body).skip(1);
    let start = lines.by_ref().find(|&i| {
        body[i] == b'\n' || (body[i..].starts_with(name) && body.get(i + name.len()) == Some(&b' '))
    })?;
    if body[start] == b'\n' {
        return None;
    }
    Some(lines.find(|&i| body[i] != b' ').unwrap_or(body.len()))
}

/// Offsets of every line start in `buf` (0 and after each LF, if in range).
fn line_starts(buf: &[u8]) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0)
        .chain(
            buf.iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .filter(move |&i| i < buf.len())
}

/// git's `parse_buffer_signed_by_header`: copies `payload` to `out` without
/// the header field `name` (returned, unfolded) and without any other
/// `gpgsig*` header line and its continuation lines (lost).
fn split_header_signature(payload: &[u8], name: &[u8], out: &mut Vec<u8>) -> Vec<u8> {
    let mut sig = Vec::new();
    let (mut in_sig, mut other_sig) = (false, false);
    let mut pos = 0;
    while pos < payload.len() {
        let next = lf_from(payload, pos).map_or(payload.len(), |i| i + 1);
        let line = &payload[pos..next];
        let own_field = line.starts_with(name) && line.get(name.len()) == Some(&b' ');
        let value = if in_sig && line[0] == b' ' {
            Some(&line[1..])
        } else if own_field {
            other_sig = false;
            Some(&line[name.len() + 1..])
        } else {
            if line.starts_with(b"gpgsig") {
                other_sig = true;
            } else if other_sig && line[0] != b' ' {
                other_sig = false;
            }
            None
        };
        in_sig = value.is_some();
        match value {
            Some(v) => sig.extend_from_slice(v),
            // The first empty line ends the header: keep the rest as is.
            None if line[0] == b'\n' => {
                out.extend_from_slice(&payload[pos..]);
                break;
            }
            None if !other_sig => out.extend_from_slice(line),
            None => {}
        }
        pos = next;
    }
    sig
}

/// git's `add_header_signature`: folds `sig` into a header field `name`,
/// inserted after the first LF of the first `LF LF` of the tag (which
/// starts at `start`), or at the end. Both searches stop at a NUL, as git's
/// C string functions do.
fn insert_header_signature(out: &mut Vec<u8>, start: usize, sig: &[u8], name: &[u8]) {
    let tag = &out[start..];
    let c_str = &tag[..tag.iter().position(|&b| b == 0).unwrap_or(tag.len())];
    let at = c_str
        .windows(2)
        .position(|w| w == b"\n\n")
        .map_or(out.len(), |i| start + i + 1);
    let sig = &sig[..sig.iter().position(|&b| b == 0).unwrap_or(sig.len())];
    let mut field = Vec::with_capacity(name.len() + sig.len() + sig.len() / 32 + 2);
    field.extend_from_slice(name);
    for line in sig.split_inclusive(|&b| b == b'\n') {
        field.push(b' ');
        field.extend_from_slice(line);
    }
    out.splice(at..at, field);
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::object::ObjectKind::Tag;
    use crate::translate::test_support::{back, fwd, hex, id1, id2, refusal};

    pub(crate) const HDR: &str = "type commit\ntag v1\ntagger T <t@x> 1 +0000\n";
    pub(crate) const SIG1: &str =
        "-----BEGIN PGP SIGNATURE-----\nAAA\n-----END PGP SIGNATURE-----\n";
    const SIG2: &str = "-----BEGIN PGP SIGNATURE-----\nBBB\n-----END PGP SIGNATURE-----\n";
    pub(crate) const F_SIG1: &str =
        "gpgsig -----BEGIN PGP SIGNATURE-----\n AAA\n -----END PGP SIGNATURE-----\n";
    const F_SIG2: &str =
        "gpgsig-sha256 -----BEGIN PGP SIGNATURE-----\n BBB\n -----END PGP SIGNATURE-----\n";

    /// The `object` line naming fake id 1 of one side.
    pub(crate) fn obj(side: fn(u8) -> ObjectId) -> String {
        format!("object {}\n", hex(side(1)))
    }

    /// The four shapes of a tag's signature placement (plus a tag without
    /// message), each
    /// checked against git 2.47.3 and exactly reversible.
    #[test]
    fn signature_relocation_table() {
        let (o1, o2) = (obj(id1), obj(id2));
        let cases = [
            (format!("{o1}{HDR}\nmsg\n"), format!("{o2}{HDR}\nmsg\n")),
            (
                format!("{o1}{HDR}\nmsg\n{SIG1}"),
                format!("{o2}{HDR}{F_SIG1}\nmsg\n"),
            ),
            (
                format!("{o1}{HDR}{F_SIG2}\nmsg\n{SIG1}"),
                format!("{o2}{HDR}{F_SIG1}\nmsg\n{SIG2}"),
            ),
            (
                format!("{o1}{HDR}{F_SIG2}\nmsg\n"),
                format!("{o2}{HDR}\nmsg\n{SIG2}"),
            ),
            (format!("{o1}{HDR}{SIG1}"), format!("{o2}{HDR}{F_SIG1}")),
        ];
        for (sha1, sha256) in &cases {
            assert_eq!(&fwd(Tag, sha1), sha256);
            assert_eq!(&back(Tag, sha256), sha1, "round trip");
        }
        let ssh = "-----BEGIN SSH SIGNATURE-----\nS\n-----END SSH SIGNATURE-----\n";
        let f_ssh = "gpgsig -----BEGIN SSH SIGNATURE-----\n S\n -----END SSH SIGNATURE-----\n";
        assert_eq!(
            fwd(Tag, &format!("{o1}{HDR}\nm\n{ssh}")),
            format!("{o2}{HDR}{f_ssh}\nm\n")
        );
    }

    #[test]
    fn other_gpgsig_headers_are_dropped() {
        let body = "gpgsig old\n cont\ngpgsig-x y\nkeep me\n\nmsg\n gpgsig-in-message\n";
        let want = "keep me\n\nmsg\n gpgsig-in-message\n";
        assert_eq!(
            fwd(Tag, &format!("{}{HDR}{body}", obj(id1))),
            format!("{}{HDR}{want}", obj(id2))
        );
    }

    /// git finds the end of the header with strstr: a NUL before `LF LF`
    /// hides it, so the field is appended at the very end.
    #[test]
    fn nul_before_header_end_appends_field_at_end() {
        let src = format!("{}type commit\ntag v\0x\n\nmsg\n{SIG1}", obj(id1));
        assert_eq!(
            fwd(Tag, &src),
            format!("{}type commit\ntag v\0x\n\nmsg\n{F_SIG1}", obj(id2))
        );
    }

    /// git copies the signature with C string functions: it stops at a NUL.
    #[test]
    fn nul_in_signature_truncates_the_field() {
        let src = format!(
            "{}{HDR}\nmsg\n-----BEGIN PGP SIGNATURE-----\nA\0B\nEND\n",
            obj(id1)
        );
        let want = format!(
            "{}{HDR}gpgsig -----BEGIN PGP SIGNATURE-----\n A\nmsg\n",
            obj(id2)
        );
        assert_eq!(fwd(Tag, &src), want);
    }

    #[test]
    fn object_line_rules() {
        let o1 = obj(id1);
        let bogus = [
            "object 1234\ntype commit\n".to_string(),
            format!("objekt {}", &o1[7..]),
            o1.trim_end().to_string(),
            format!("object {}x\n", &o1[7..46]),
            format!("{}{HDR}", obj(id2)),
        ];
        for body in &bogus {
            let err = refusal(Tag, body, false);
            assert!(
                matches!(err, TranslateError::MalformedTag { .. }),
                "{body:?}: {err:?}"
            );
        }
        let unmapped = format!("object {}\n{HDR}", hex(id1(42)));
        let want = TranslateError::UnmappedId {
            field: "object",
            id: id1(42),
        };
        assert_eq!(refusal(Tag, &unmapped, false), want);
    }
}
