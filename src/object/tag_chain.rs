//! Following annotated tags to the object they finally name (git's
//! "peeling"), over whatever object store the caller reads from.

use super::ObjectKind;
use super::references::{ReferenceRole, for_each_reference};
use crate::hash::ObjectId;

/// Tags of tags deeper than this are not followed.
pub const MAX_TAG_CHAIN: usize = 64;

/// The first object that is not a tag, starting at `id` (itself when it is
/// not a tag) and following each tag's `object` line; `read` gives an
/// object's kind and body. `None` when an object cannot be read, a tag is
/// malformed or the chain is longer than [`MAX_TAG_CHAIN`].
pub fn peel_tags(
    id: &ObjectId,
    mut read: impl FnMut(&ObjectId) -> Option<(ObjectKind, Vec<u8>)>,
) -> Option<ObjectId> {
    let mut current = *id;
    for _ in 0..=MAX_TAG_CHAIN {
        let (kind, body) = read(&current)?;
        if kind != ObjectKind::Tag {
            return Some(current);
        }
        let mut target = None;
        for_each_reference(kind, &body, current.kind(), |named, role| {
            if role == ReferenceRole::TagObject {
                target = Some(named);
            }
        })
        .ok()?;
        current = target?;
    }
    None
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn id(byte: u8) -> ObjectId {
        ObjectId::Sha1([byte; 20])
    }

    fn tag_of(target: ObjectId) -> (ObjectKind, Vec<u8>) {
        let body = format!("object {target}\ntype commit\ntag t\ntagger T <t@t> 0 +0000\n\nm\n");
        (ObjectKind::Tag, body.into_bytes())
    }

    #[test]
    fn tags_are_followed_to_the_first_other_object() {
        let mut store: HashMap<ObjectId, (ObjectKind, Vec<u8>)> = HashMap::new();
        store.insert(id(1), (ObjectKind::Commit, b"tree x\n".to_vec()));
        store.insert(id(2), tag_of(id(1)));
        store.insert(id(3), tag_of(id(2)));
        store.insert(id(4), tag_of(id(9)));
        store.insert(id(5), (ObjectKind::Tag, b"not a tag\n".to_vec()));
        let read = |i: &ObjectId| store.get(i).cloned();
        assert_eq!(peel_tags(&id(1), read), Some(id(1)));
        assert_eq!(peel_tags(&id(3), read), Some(id(1)));
        assert_eq!(peel_tags(&id(4), read), None, "its object is missing");
        assert_eq!(peel_tags(&id(5), read), None, "malformed");
    }

    #[test]
    fn a_ring_of_tags_ends() {
        let (a, b) = (id(1), id(2));
        let read = |i: &ObjectId| Some(tag_of(if *i == a { b } else { a }));
        assert_eq!(peel_tags(&a, read), None);
    }
}
