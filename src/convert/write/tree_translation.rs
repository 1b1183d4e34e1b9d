//! A tree's DEST form and the record of what it reaches
//! (`convert/reach_record.rs`), made in one walk over its entries with one table
//! lookup each: the translation needs every entry's SHA-256 name, the
//! record every entry's table index, and the memo of recent lookups
//! (`recent_lookups.rs`) holds both in one slot.

use crate::convert::reach_record::Reached;
use crate::convert::source_objects::table::ObjectTable;
use crate::translate::{TranslateError, map_id_by, translate_tree_by};

/// Translates the SOURCE tree `body` into `out`, as `translate_tree` with
/// the table's names does, and returns what it reaches: every entry but
/// gitlinks, by table index, or `None` if one is not in the table.
pub fn translate_tree_reaching(
    table: &ObjectTable,
    body: &[u8],
    out: &mut Vec<u8>,
) -> Result<Option<Reached>, TranslateError> {
    let direction = table.direction();
    let (from, to) = (direction.source(), direction.dest());
    // Entries are at least 22 bytes; most are 30-50.
    let mut children = Vec::with_capacity(body.len() / 32);
    let mut complete = true;
    table.with_recent(|recent| {
        translate_tree_by(body, from, to, out, |entry| {
            // A submodule commit is not followed (`followed_by_walk`).
            let name = if entry.is_gitlink() {
                None
            } else {
                match recent.find_named(&entry.id) {
                    Some((at, name)) => {
                        children.push(at);
                        name
                    }
                    None => {
                        complete = false;
                        None
                    }
                }
            };
            map_id_by(&entry.id, from, to, || {
                name.or_else(|| recent.map_source(&entry.id))
            })
        })
    })?;
    Ok(complete.then(|| Reached {
        children: children.into_boxed_slice(),
        time: 0,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::source_objects::table::{Location, test_id as id};
    use crate::hash::{HashKind, ObjectId};
    use crate::object::ObjectKind;
    use crate::translate::translate_tree;

    fn entry(mode: &str, name: &str, id: &[u8]) -> Vec<u8> {
        [format!("{mode} {name}\0").as_bytes(), id].concat()
    }

    /// A table of ids 0..5, all but 4 named; ids 5 and up are not in it.
    fn table() -> ObjectTable {
        let t = ObjectTable::new(
            (0..5)
                .map(|k| (id(k), Location::Loose { dir: 0 }))
                .collect(),
        );
        for k in 0..4 {
            let at = t.find(&ObjectId::Sha1(id(k))).unwrap();
            t.name(at, ObjectId::Sha256([k as u8 + 1; 32]));
        }
        t
    }

    /// The SHA-256 form, or why not, and the children reached.
    type Outcome = (Result<Vec<u8>, TranslateError>, Option<Box<[u32]>>);

    /// `translate_tree` through the table's map, and `Reached::of`.
    fn separately(t: &ObjectTable, body: &[u8]) -> Outcome {
        let mut out = Vec::new();
        let map = |i: &ObjectId| t.map_source(i);
        let translated = translate_tree(body, HashKind::Sha1, HashKind::Sha256, &map, &mut out);
        let reached = Reached::of(t, ObjectKind::Tree, body).map(|r| r.children);
        (translated.map(|()| out), reached)
    }

    fn together(t: &ObjectTable, body: &[u8]) -> Outcome {
        let mut out = Vec::new();
        match translate_tree_reaching(t, body, &mut out) {
            Ok(reached) => (Ok(out), reached.map(|r| r.children)),
            Err(e) => (Err(e), None),
        }
    }

    #[test]
    fn one_walk_gives_what_the_translation_and_the_record_give() {
        let t = table();
        let empty_blob = HashKind::Sha1.empty_blob();
        let cases: Vec<Vec<u8>> = vec![
            [entry("100644", "a", &id(0)), entry("40000", "d", &id(1))].concat(),
            // The same object under two names.
            [entry("100644", "a", &id(2)), entry("100755", "b", &id(2))].concat(),
            // The empty blob, known without the table: translated, but the
            // record is incomplete.
            [
                entry("100644", "e", empty_blob.as_bytes()),
                entry("100644", "f", &id(3)),
            ]
            .concat(),
            // In the table but not named yet: refused.
            entry("100644", "n", &id(4)),
            // Not in the table at all.
            entry("100644", "m", &id(7)),
            Vec::new(),
        ];
        for body in &cases {
            let (want_out, want_reached) = separately(&t, body);
            let (got_out, got_reached) = together(&t, body);
            assert_eq!(got_out, want_out, "{body:?}");
            if want_out.is_ok() {
                assert_eq!(got_reached, want_reached, "{body:?}");
            }
        }
        let gitlink = entry("160000", "sub", &id(9));
        let (out, _) = together(&t, &gitlink);
        assert_eq!(out, separately(&t, &gitlink).0);
        assert!(out.is_err(), "an unmapped gitlink is refused");
        let named_gitlink = entry("160000", "sub", &id(1));
        let (out, reached) = together(&t, &named_gitlink);
        assert_eq!(out, separately(&t, &named_gitlink).0);
        assert_eq!(
            reached.as_deref(),
            Some(&[][..]),
            "a gitlink is not followed"
        );
    }
}
