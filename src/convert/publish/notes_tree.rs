//! The layout of a notes tree (gitformat: git-notes(1), "NOTES"): which
//! entries are notes, the fan-out git writes for a set of notes, and the
//! trees of a new layout. Pure functions over tree bodies, used by
//! `--rekey-notes` (rekey_notes.rs).
//!
//! A note is a blob whose path, with the slashes taken out, is the full hex
//! name of the annotated object; the directories on the way are fan-out
//! levels of two hex digits each (`ab/cdef...`, `ab/cd/ef...`). Every other
//! entry is a "non-note" that git keeps at its path.

use std::collections::BTreeMap;

use crate::hash::{HashKind, ObjectId};
use crate::object::tree_entries;

/// A note found in a tree: the annotated object's name and the note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub key: ObjectId,
    /// Where it was found (for keeping it when the key cannot be re-keyed).
    pub path: Vec<u8>,
    pub mode: Vec<u8>,
    pub value: ObjectId,
}

/// Any entry at a path of a tree being built (or kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathEntry {
    pub path: Vec<u8>,
    pub mode: Vec<u8>,
    pub id: ObjectId,
}

/// Splits the notes tree `root` (of hash `hash`) into notes and non-notes.
/// `read_tree` returns a tree's body. A key seen twice (at two fan-outs)
/// keeps its first note; the other is a non-note, as nothing can name it.
pub fn classify<E>(
    root: ObjectId,
    hash: HashKind,
    read_tree: &mut dyn FnMut(&ObjectId) -> Result<Vec<u8>, E>,
) -> Result<(Vec<Note>, Vec<PathEntry>), E> {
    let mut notes: Vec<Note> = Vec::new();
    let mut others = Vec::new();
    let mut stack = vec![(root, Vec::<u8>::new(), String::new())];
    while let Some((tree, dir, hex_so_far)) = stack.pop() {
        let body = read_tree(&tree)?;
        for entry in tree_entries(&body, hash).flatten() {
            let path = join(&dir, entry.name);
            let hex_name = std::str::from_utf8(entry.name)
                .ok()
                .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_hexdigit()));
            let is_tree = mode_is_tree(entry.mode);
            match hex_name {
                Some(name)
                    if is_tree && name.len() == 2 && hex_so_far.len() + 2 < hash.hex_len() =>
                {
                    stack.push((entry.id, path, format!("{hex_so_far}{name}")));
                }
                Some(name) if !is_tree && hex_so_far.len() + name.len() == hash.hex_len() => {
                    let key_hex = format!("{hex_so_far}{name}").to_ascii_lowercase();
                    let key = ObjectId::from_hex(hash, key_hex.as_bytes())
                        .expect("checked: full-length hex");
                    if notes.iter().any(|n| n.key == key) {
                        others.push(PathEntry {
                            path,
                            mode: entry.mode.to_vec(),
                            id: entry.id,
                        });
                    } else {
                        notes.push(Note {
                            key,
                            path,
                            mode: entry.mode.to_vec(),
                            value: entry.id,
                        });
                    }
                }
                _ => others.push(PathEntry {
                    path,
                    mode: entry.mode.to_vec(),
                    id: entry.id,
                }),
            }
        }
    }
    Ok((notes, others))
}

/// The fan-out (number of two-digit directory levels) of each key, as git
/// lays out a notes tree it writes: git holds notes in a 16-way trie on
/// the hex digits of their keys (a slot holds a single note until a second
/// note shares its prefix); at each even depth it adds one fan-out level
/// when all 16 slots of the node hold several notes, at most one level per
/// two digits. `keys` must be sorted and distinct; the result is in order.
pub fn fanouts(keys: &[Vec<u8>]) -> Vec<usize> {
    let mut out = Vec::with_capacity(keys.len());
    if !keys.is_empty() {
        trie_node(keys, 0, 0, &mut out);
    }
    out
}

/// A trie node at depth `depth` (hex digits) holding `keys`.
fn trie_node(keys: &[Vec<u8>], depth: usize, fanout: usize, out: &mut Vec<usize>) {
    let mut groups: Vec<&[Vec<u8>]> = Vec::with_capacity(16);
    let mut start = 0;
    for i in 1..=keys.len() {
        if i == keys.len() || nibble(&keys[i], depth) != nibble(&keys[start], depth) {
            groups.push(&keys[start..i]);
            start = i;
        }
    }
    let full = groups.len() == 16 && groups.iter().all(|g| g.len() > 1);
    let fanout = if depth.is_multiple_of(2) && depth <= 2 * fanout && full {
        fanout + 1
    } else {
        fanout
    };
    for group in groups {
        if group.len() == 1 || depth + 1 >= group[0].len() * 2 {
            out.extend(std::iter::repeat_n(fanout, group.len()));
        } else {
            trie_node(group, depth + 1, fanout, out);
        }
    }
}

fn nibble(key: &[u8], depth: usize) -> u8 {
    let byte = key[depth / 2];
    if depth.is_multiple_of(2) {
        byte >> 4
    } else {
        byte & 15
    }
}

/// The path of a note for `key` with `fanout` directory levels.
pub fn note_path(key: &ObjectId, fanout: usize) -> Vec<u8> {
    let hex = key.to_hex();
    let mut path = Vec::with_capacity(hex.len() + fanout);
    for level in 0..fanout {
        path.extend_from_slice(&hex.as_bytes()[2 * level..2 * level + 2]);
        path.push(b'/');
    }
    path.extend_from_slice(&hex.as_bytes()[2 * fanout..]);
    path
}

/// Builds the trees holding `entries` (paths with `/`) bottom up, calling
/// `write` with each tree body (children first); returns the root's id. On
/// conflicting paths (a file where a directory is needed, or the same path
/// twice) the earlier entry wins.
pub fn build_trees<E>(
    entries: &[PathEntry],
    write: &mut dyn FnMut(&[u8]) -> Result<ObjectId, E>,
) -> Result<ObjectId, E> {
    let mut root = Dir::default();
    for entry in entries {
        root.insert(&entry.path, entry);
    }
    root.write(write)
}

#[derive(Default)]
struct Dir<'a> {
    /// Name -> entry, in git's tree order (see `sort_key`).
    children: BTreeMap<Vec<u8>, Child<'a>>,
}

enum Child<'a> {
    Leaf(&'a PathEntry),
    Dir(Dir<'a>),
}

impl<'a> Dir<'a> {
    fn insert(&mut self, path: &[u8], entry: &'a PathEntry) {
        match path.iter().position(|&b| b == b'/') {
            None => {
                let key = sort_key(path, mode_is_tree(&entry.mode));
                let taken = self.children.contains_key(&sort_key(path, false))
                    || self.children.contains_key(&sort_key(path, true));
                if !taken {
                    self.children.insert(key, Child::Leaf(entry));
                }
            }
            Some(slash) => {
                let (name, rest) = (&path[..slash], &path[slash + 1..]);
                let key = sort_key(name, true);
                let leaf_there = self.children.contains_key(&sort_key(name, false));
                if leaf_there {
                    return;
                }
                match self
                    .children
                    .entry(key)
                    .or_insert_with(|| Child::Dir(Dir::default()))
                {
                    Child::Dir(dir) => dir.insert(rest, entry),
                    Child::Leaf(_) => {} // a kept subtree already has this name
                }
            }
        }
    }

    fn write<E>(&self, write: &mut dyn FnMut(&[u8]) -> Result<ObjectId, E>) -> Result<ObjectId, E> {
        let mut body = Vec::new();
        for (key, child) in &self.children {
            let (mode, id): (&[u8], ObjectId) = match child {
                Child::Leaf(entry) => (&entry.mode, entry.id),
                Child::Dir(dir) => (b"40000", dir.write(write)?),
            };
            body.extend_from_slice(mode);
            body.push(b' ');
            body.extend_from_slice(name_of(key));
            body.push(0);
            body.extend_from_slice(id.as_bytes());
        }
        write(&body)
    }
}

/// git orders tree entries by name, a directory's name compared as if it
/// ended with `/`. The key is that string; [`name_of`] recovers the name.
fn sort_key(name: &[u8], is_tree: bool) -> Vec<u8> {
    let mut key = name.to_vec();
    key.push(if is_tree { b'/' } else { 0 });
    key
}

fn name_of(key: &[u8]) -> &[u8] {
    &key[..key.len() - 1]
}

fn mode_is_tree(mode: &[u8]) -> bool {
    crate::object::TreeMode::parse(mode).is_tree()
}

fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut path = dir.to_vec();
    if !path.is_empty() {
        path.push(b'/');
    }
    path.extend_from_slice(name);
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(first: u8, second: u8) -> Vec<u8> {
        let mut k = vec![0u8; 32];
        k[0] = first;
        k[1] = second;
        k
    }

    #[test]
    fn few_notes_have_no_fanout() {
        let keys: Vec<Vec<u8>> = (0..20u8).map(|i| key(i * 12, 0)).collect();
        assert!(fanouts(&keys).iter().all(|&f| f == 0));
    }

    #[test]
    fn every_top_slot_shared_gives_one_level() {
        // Two keys per first hex digit: the root's 16 slots all hold two.
        let mut keys: Vec<Vec<u8>> = (0..16u8)
            .flat_map(|d| [key(d << 4, 0), key((d << 4) | 1, 0)])
            .collect();
        keys.sort();
        assert!(fanouts(&keys).iter().all(|&f| f == 1));
        // One digit with a single key: no fan-out at all.
        keys.remove(0);
        assert!(fanouts(&keys).iter().all(|&f| f == 0));
    }

    #[test]
    fn trees_are_sorted_as_git_sorts_them() {
        let blob = ObjectId::Sha1([1; 20]);
        let entries = vec![
            PathEntry {
                path: b"a-b".to_vec(),
                mode: b"100644".to_vec(),
                id: blob,
            },
            PathEntry {
                path: b"a/x".to_vec(),
                mode: b"100644".to_vec(),
                id: blob,
            },
            PathEntry {
                path: b"a".to_vec(),
                mode: b"100644".to_vec(),
                id: blob,
            },
        ];
        let mut written = Vec::new();
        build_trees::<()>(&entries, &mut |body| {
            written.push(body.to_vec());
            Ok(ObjectId::Sha1([written.len() as u8; 20]))
        })
        .unwrap();
        let root = written.last().unwrap();
        // "a-b" < "a/" ('-' is 0x2d, '/' is 0x2f); file "a" conflicts with dir "a".
        let names: Vec<&[u8]> = tree_entries(root, HashKind::Sha1)
            .map(|e| e.unwrap().name)
            .collect();
        assert_eq!(names, [b"a-b".as_slice(), b"a"]);
        assert_eq!(written.len(), 2);
    }

    #[test]
    fn classify_finds_fanned_out_notes_and_keeps_others() {
        let k1 = "12".repeat(20);
        let k2 = "ab".repeat(20);
        let blob = ObjectId::Sha1([9; 20]);
        let mut trees: BTreeMap<ObjectId, Vec<u8>> = BTreeMap::new();
        let entry = |mode: &str, name: &str, id: ObjectId| {
            let mut v = format!("{mode} {name}\0").into_bytes();
            v.extend_from_slice(id.as_bytes());
            v
        };
        let sub = ObjectId::Sha1([2; 20]);
        trees.insert(
            sub,
            [
                entry("100644", &k2[2..], blob),
                entry("100644", "README", blob),
            ]
            .concat(),
        );
        let root = ObjectId::Sha1([1; 20]);
        trees.insert(
            root,
            [
                entry("100644", &k1, blob),
                entry("100644", "zz", blob),
                entry("40000", "ab", sub),
            ]
            .concat(),
        );
        let (notes, others) =
            classify::<()>(root, HashKind::Sha1, &mut |id| Ok(trees[id].clone())).unwrap();
        let keys: Vec<String> = notes.iter().map(|n| n.key.to_hex()).collect();
        assert_eq!(keys, [k1.clone(), k2.clone()]);
        let paths: Vec<&[u8]> = others.iter().map(|o| o.path.as_slice()).collect();
        assert_eq!(paths, [b"zz".as_slice(), b"ab/README"]);
        assert_eq!(
            note_path(&notes[1].key, 1),
            format!("ab/{}", &k2[2..]).into_bytes()
        );
    }
}
