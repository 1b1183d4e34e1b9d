//! Which loose refs a files DEST keeps in `packed-refs`: those `git
//! pack-refs --all` (what `git gc` runs) would pack.
//!
//! A loose ref is a file, and each directory of them is one more: a
//! forge's repository holds a `refs/pull/<n>/` directory for every pull
//! request, and creating tens of thousands of them (each a new directory
//! block, then flushed) took longer than converting the objects. One
//! `packed-refs` file holds them all, git reads it as it reads loose refs,
//! and `git gc` would pack them anyway.
//!
//! Symbolic refs and per-worktree refs stay loose, as git keeps them; so
//! does a ref whose object cannot be peeled here (the caller could not
//! read the tag it names), since a packed annotated tag carries the object
//! it finally names on a `^` line, which git trusts.

use std::collections::HashSet;

use super::{PackedRef, PackedRefs};
use crate::hash::ObjectId;

/// What the object a ref names peels to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peeled {
    /// Not an annotated tag: nothing to peel.
    NotATag,
    /// An annotated tag (or a chain of them) naming this object.
    To(ObjectId),
    /// Not known: the ref stays loose.
    Unknown,
}

/// The caller's peeling, by source id.
pub type PeelMap<'a> = &'a dyn Fn(&ObjectId) -> Peeled;

/// The header git writes on `packed-refs` (trailing space included):
/// every annotated tag has its `^` line, and entries are sorted by name.
const GIT_HEADER: &[u8] = b"# pack-refs with: peeled fully-peeled sorted \n";

/// Refs of one worktree alone, which git never packs.
const PER_WORKTREE: [&str; 3] = ["refs/bisect/", "refs/worktree/", "refs/rewritten/"];

/// Whether git would pack the loose ref `name` when it names an object
/// (a symbolic ref is never packed).
pub(super) fn packable(name: &str) -> bool {
    name.starts_with("refs/") && !PER_WORKTREE.iter().any(|p| name.starts_with(p))
}

/// `packed` with the translated loose refs `moved` added (sorted by name):
/// each replaces a packed entry of its name, which it hid as a loose ref.
/// The header is kept; a sorted file stays sorted, an unsorted one gets
/// the new entries at its end. Without a `packed-refs` before, the file is
/// git's own: its header, sorted.
pub(super) fn merge_packed(
    packed: Option<PackedRefs>,
    moved: Vec<PackedRef>,
) -> Option<PackedRefs> {
    if moved.is_empty() {
        return packed;
    }
    let Some(mut packed) = packed else {
        return Some(PackedRefs {
            header: Some(GIT_HEADER.to_vec()),
            entries: moved,
        });
    };
    let names: HashSet<&str> = moved.iter().map(|r| r.name.as_str()).collect();
    packed.entries.retain(|e| !names.contains(e.name.as_str()));
    packed.entries.extend(moved);
    if packed.is_sorted() {
        packed.entries.sort_by(|a, b| a.name.cmp(&b.name));
    }
    Some(packed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::HashKind;

    fn id(byte: u8) -> ObjectId {
        ObjectId::Sha256([byte; 32])
    }

    fn entry(name: &str, byte: u8, peeled: Option<u8>) -> PackedRef {
        PackedRef {
            name: name.into(),
            id: id(byte),
            peeled: peeled.map(id),
        }
    }

    fn names(packed: &PackedRefs) -> Vec<&str> {
        packed.entries.iter().map(|e| e.name.as_str()).collect()
    }

    #[test]
    fn per_worktree_and_root_refs_stay_loose() {
        assert!(packable("refs/heads/main"));
        assert!(packable("refs/pull/7/head"));
        assert!(packable("refs/worktree-heads/wt"));
        assert!(!packable("refs/bisect/bad"));
        assert!(!packable("refs/worktree/x"));
        assert!(!packable("refs/rewritten/onto"));
        assert!(!packable("HEAD"));
    }

    #[test]
    fn without_a_packed_file_git_header_and_order() {
        let moved = vec![
            entry("refs/heads/a", 1, None),
            entry("refs/tags/v1", 2, Some(3)),
        ];
        let packed = merge_packed(None, moved).expect("a file");
        assert_eq!(packed.header.as_deref(), Some(GIT_HEADER));
        assert!(packed.is_sorted());
        let bytes = packed.to_bytes();
        let back = PackedRefs::parse(std::path::Path::new("p"), HashKind::Sha256, &bytes).unwrap();
        assert_eq!(back, packed);
        assert_eq!(merge_packed(None, Vec::new()), None);
    }

    #[test]
    fn a_moved_ref_replaces_the_entry_it_hid() {
        let sorted = PackedRefs {
            header: Some(GIT_HEADER.to_vec()),
            entries: vec![
                entry("refs/heads/b", 1, None),
                entry("refs/tags/t", 2, Some(9)),
            ],
        };
        let moved = vec![
            entry("refs/heads/a", 3, None),
            entry("refs/tags/t", 4, None),
        ];
        let merged = merge_packed(Some(sorted), moved).unwrap();
        assert_eq!(
            names(&merged),
            ["refs/heads/a", "refs/heads/b", "refs/tags/t"]
        );
        assert_eq!(merged.entries[2], entry("refs/tags/t", 4, None));

        // No `sorted` trait: the file's order is kept, new entries last.
        let unsorted = PackedRefs {
            header: None,
            entries: vec![
                entry("refs/heads/z", 1, None),
                entry("refs/heads/b", 2, None),
            ],
        };
        let merged = merge_packed(Some(unsorted), vec![entry("refs/heads/a", 3, None)]).unwrap();
        assert_eq!(
            names(&merged),
            ["refs/heads/z", "refs/heads/b", "refs/heads/a"]
        );
        assert_eq!(merged.header, None);
    }
}
