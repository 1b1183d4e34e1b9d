//! `object::for_each_reference` must accept and refuse exactly what
//! translation does, and visit exactly the ids translation maps: the
//! scheduler relies on it to order translation and to find missing objects.

use std::cell::RefCell;

use super::error::TranslateError;
use super::test_support::{hex, id1, id2, pairs};
use super::{TranslateOptions, translate_object};
use crate::hash::{HashKind, ObjectId};
use crate::object::{ObjectKind, for_each_reference};

fn check(kind: ObjectKind, body: &[u8]) {
    let mut visited = Vec::new();
    let refs = for_each_reference(kind, body, HashKind::Sha1, |id, _| visited.push(id));
    let asked = RefCell::new(Vec::new());
    let inner = pairs();
    let map = |id: &ObjectId| {
        asked.borrow_mut().push(*id);
        inner(id)
    };
    let mut out = Vec::new();
    let opts = TranslateOptions::default();
    let result = translate_object(
        kind,
        body,
        HashKind::Sha1,
        HashKind::Sha256,
        &map,
        opts,
        &mut out,
    );
    let malformed = matches!(
        result,
        Err(TranslateError::MalformedTree { .. }
            | TranslateError::MalformedCommit { .. }
            | TranslateError::MalformedTag { .. })
    );
    assert_eq!(
        refs.is_err(),
        malformed,
        "{:?}: {refs:?} vs {result:?}",
        String::from_utf8_lossy(body)
    );
    if result.is_ok() {
        assert_eq!(
            visited,
            asked.into_inner(),
            "{:?}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn references_agree_with_translation() {
    let [t, p, o] = [1, 2, 3].map(|n| hex(id1(n)));
    let ok_tree = [b"100644 a\0".as_slice(), &[4; 20], b"160000 s\0", &[5; 20]].concat();
    check(ObjectKind::Tree, &ok_tree);
    check(ObjectKind::Tree, &[&ok_tree[..], b"x"].concat());
    check(ObjectKind::Tree, &ok_tree[1..]);
    for commit in [
        format!(
            "tree {t}\nparent {p}\nauthor A\nmergetag object {o}\n type tag\n \n m\nx 1\n cont\n\nparent {p}\n"
        ),
        format!("tree {t}"),
        format!("tree {t}1\n"),
        "tree\n".into(),
        "tree \n".into(),
        "parent\n".into(),
        format!(" x\ntree {t}\n"),
        format!("tree {t}\nmergetag object {}\n", &o[1..]),
        format!("tree {t}\nmergetag object {}\n type commit\n", hex(id2(3))),
        "mergetag \n".into(),
        format!("tree {t}\nauthor A\n cont"),
        format!("tree {}\n", hex(id2(1))),
    ] {
        check(ObjectKind::Commit, commit.as_bytes());
    }
    for tag in [
        format!("object {o}\n\nobject {t}\n"),
        format!("object {o}"),
        format!("object {o}x\n"),
        "type commit\n".into(),
    ] {
        check(ObjectKind::Tag, tag.as_bytes());
    }
}
