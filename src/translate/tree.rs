//! Tree translation (docs/translation.md, "Trees"; git's `convert_tree_object`):
//! modes and names are copied verbatim, every entry's raw id (gitlinks
//! included) goes through the map, malformed entries are refused.

use super::error::TranslateError;
use super::{IdMapper, map_id};
use crate::hash::{HashKind, ObjectId};
use crate::object::{TreeEntry, tree_entries};

/// Translates a tree body into `out` (cleared first).
pub fn translate_tree(
    body: &[u8],
    from: HashKind,
    to: HashKind,
    map: &dyn IdMapper,
    out: &mut Vec<u8>,
) -> Result<(), TranslateError> {
    translate_tree_by(body, from, to, out, |entry| {
        map_id(map, &entry.id, from, to)
    })
}

/// [`translate_tree`] with each entry's id mapped by `map_entry`, which
/// sees the whole entry (a caller that also records what each entry
/// names does it in the same lookup). `map_entry` must answer as
/// [`translate_tree`]'s mapping would, well-known ids first
/// ([`super::well_known_id`]).
pub fn translate_tree_by(
    body: &[u8],
    from: HashKind,
    to: HashKind,
    out: &mut Vec<u8>,
    mut map_entry: impl FnMut(&TreeEntry<'_>) -> Result<Option<ObjectId>, TranslateError>,
) -> Result<(), TranslateError> {
    out.clear();
    // Every entry grows or shrinks by the same amount; reserve once.
    let per_entry = to.raw_len() as isize - from.raw_len() as isize;
    let estimate = body.len() as isize + per_entry * (body.len() / 32) as isize;
    out.reserve(estimate.max(0) as usize);
    for entry in tree_entries(body, from) {
        let entry = entry?;
        let mapped = map_entry(&entry)?.ok_or_else(|| TranslateError::UnmappedTreeEntry {
            id: entry.id,
            name: String::from_utf8_lossy(entry.name).into_owned(),
            mode: String::from_utf8_lossy(entry.mode).into_owned(),
        })?;
        out.extend_from_slice(entry.head);
        out.extend_from_slice(mapped.as_bytes());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::ObjectId;
    use crate::translate::test_support::{id1, id2, pairs};

    fn entry(mode: &str, name: &[u8], id: ObjectId) -> Vec<u8> {
        let mut e = format!("{mode} ").into_bytes();
        e.extend_from_slice(name);
        e.push(0);
        e.extend_from_slice(id.as_bytes());
        e
    }

    fn tree(entries: &[(&str, &[u8], ObjectId)]) -> Vec<u8> {
        entries
            .iter()
            .flat_map(|(m, n, id)| entry(m, n, *id))
            .collect()
    }

    fn run(body: &[u8], from: HashKind, to: HashKind) -> Result<Vec<u8>, TranslateError> {
        let map = pairs();
        let mut out = vec![0xEE; 3]; // must be cleared
        translate_tree(body, from, to, &map, &mut out).map(|()| out)
    }

    #[test]
    fn maps_every_entry_and_keeps_modes_names_order() {
        let (s1, s2) = (HashKind::Sha1, HashKind::Sha256);
        // Odd modes, unsorted and duplicate names, a gitlink: all verbatim.
        let src = tree(&[
            ("100664", b"z", id1(1)),
            ("040000", b"dir", id1(2)),
            ("40000", b"dir", id1(2)),
            ("160000", b"sub", id1(3)),
            ("100644", b"empty", s1.empty_blob()),
            ("40000", b"e", s1.empty_tree()),
            ("100644", b"zero", s1.null_id()),
        ]);
        let want = tree(&[
            ("100664", b"z", id2(1)),
            ("040000", b"dir", id2(2)),
            ("40000", b"dir", id2(2)),
            ("160000", b"sub", id2(3)),
            ("100644", b"empty", s2.empty_blob()),
            ("40000", b"e", s2.empty_tree()),
            ("100644", b"zero", s2.null_id()),
        ]);
        assert_eq!(run(&src, s1, s2).unwrap(), want);
        assert_eq!(run(&want, s2, s1).unwrap(), src, "round trip");
        assert_eq!(run(b"", s1, s2).unwrap(), b"");
    }

    #[test]
    fn unmapped_gitlink_names_the_entry() {
        let src = tree(&[("100644", b"a", id1(1)), ("160000", b"lib/x", id1(99))]);
        let err = run(&src, HashKind::Sha1, HashKind::Sha256).unwrap_err();
        assert_eq!(
            err,
            TranslateError::UnmappedTreeEntry {
                id: id1(99),
                name: "lib/x".into(),
                mode: "160000".into()
            }
        );
        assert!(
            err.to_string()
                .starts_with("failed to map tree entry \"lib/x\"")
        );
    }

    #[test]
    fn malformed_entries_are_refused() {
        let good = entry("100644", b"a", id1(1));
        let malformed = |body: &[u8]| match run(body, HashKind::Sha1, HashKind::Sha256) {
            Err(TranslateError::MalformedTree { offset, .. }) => offset,
            other => panic!("{other:?} for {body:?}"),
        };
        let cases: Vec<Vec<u8>> = vec![
            entry("", b"a", id1(1)),                      // empty mode
            entry("10064x", b"a", id1(1)),                // non-octal mode
            entry("100644", b"", id1(1)),                 // empty name
            good[..good.len() - 1].to_vec(),              // truncated id
            [b" 100644".as_slice(), &good[6..]].concat(), // mode starts with SP
            [&good[..], b"1"].concat(),                   // trailing junk
        ];
        for (i, case) in cases.iter().enumerate() {
            assert_eq!(malformed(case), 0, "case {i}");
        }
        let junk_entry = [&good[..], b"x", &good[..]].concat();
        assert_eq!(malformed(&junk_entry), good.len());
        // A SHA-256 tree read as SHA-1 is refused, not silently misparsed.
        let wide = entry("100644", b"a", id2(1));
        malformed(&wide);
    }
}
