//! The reachability graph of one pack, in pack order (by offset, the order
//! of a pack bitmap's bits): each object's kind and the positions of the
//! objects it reaches the way git's object walk does (a commit its tree and
//! parents, a tree its entries but not submodule commits, a tag its
//! target). `mergetag` payloads are not followed: git does not either.
//!
//! Blobs reach nothing, so only commits, trees and tags are decoded, in
//! parallel over their delta trees. Memory: 4 bytes an edge plus about 16
//! an object, for as long as the bitmaps and the commit-graph are built.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::error::ReachError;
use crate::hash::{ObjectId, PrefixBuckets};
use crate::object::ObjectKind;
use crate::object::{ReferenceRole, for_each_reference};
use crate::pack::data::cache::DeltaCache;
use crate::pack::data::resolve::Pack;

/// The graph of a pack.
pub struct Graph<'k> {
    /// Each position's kind.
    pub kinds: Vec<ObjectKind>,
    /// Children of position `p`: `edges[edge_start[p]..edge_start[p + 1]]`,
    /// except trees' when `tree_children` answers for them.
    edge_start: Vec<u64>,
    edges: Vec<u32>,
    /// What the run recorded, asked again for a tree's children each time
    /// they are walked instead of held: a repository's trees reach most of
    /// its edges (git.git: 59 million, 236 MB as positions, against
    /// 419,403 objects), and only the bitmaps' walk needs them.
    tree_children: Option<&'k Known<'k>>,
    /// A commit's committer time (seconds); 0 for other kinds.
    pub commit_time: Vec<i64>,
    /// The position of each idx entry (idx order is by name).
    pub position_of_index: Vec<u32>,
    /// The idx entry at each position.
    pub index_of_position: Vec<u32>,
}

/// The idx entries by the first 8 bytes of their names (see
/// [`PrefixBuckets`]): tree entries are found without a binary search.
struct NameIndex {
    buckets: PrefixBuckets,
    prefixes: Vec<u64>,
    /// Tells this index's answers in a thread's memo from those of an
    /// index over another pack, made earlier on the same thread.
    serial: u64,
}

/// What a thread remembers of its recent answers, and for which index.
struct Recent {
    serial: u64,
    slots: Vec<Option<(ObjectId, u32)>>,
}

impl NameIndex {
    fn of_pack(pack: &Pack) -> Self {
        static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);
        // The idx is sorted by name, so the prefixes are too.
        let prefixes: Vec<u64> = (0..pack.idx.num_objects())
            .map(|i| pack.idx.oid_at(i).leading_u64())
            .collect();
        NameIndex {
            buckets: PrefixBuckets::new(&prefixes),
            prefixes,
            serial: NEXT_SERIAL.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The idx position of `id`, through this thread's memo of recent
    /// answers: the entries of a tree version are mostly those of the
    /// version decoded just before it, on the same thread. The memo
    /// outlives the index (a pool's threads serve one pack, then another),
    /// so it answers only for the index that filled it.
    fn find(&self, pack: &Pack, id: &ObjectId) -> Option<u32> {
        const SLOTS: usize = 4096;
        thread_local! {
            static RECENT: std::cell::RefCell<Recent> =
                const { std::cell::RefCell::new(Recent { serial: 0, slots: Vec::new() }) };
        }
        let slot = (id.leading_u64() as usize) % SLOTS;
        let hit = RECENT.with_borrow(|recent| {
            (recent.serial == self.serial)
                .then(|| recent.slots[slot])
                .flatten()
                .filter(|(known, _)| known == id)
                .map(|(_, at)| at)
        });
        if hit.is_some() {
            return hit;
        }
        let found = self.search(pack, id)?;
        RECENT.with_borrow_mut(|recent| {
            if recent.serial != self.serial {
                recent.slots.clear();
                recent.slots.resize(SLOTS, None);
                recent.serial = self.serial;
            }
            recent.slots[slot] = Some((*id, found));
        });
        Some(found)
    }

    fn search(&self, pack: &Pack, id: &ObjectId) -> Option<u32> {
        let p = id.leading_u64();
        self.buckets
            .range(p)
            .filter(|&i| self.prefixes[i] == p)
            .map(|i| i as u32)
            .find(|&i| pack.idx.oid_at(i) == *id)
    }
}

/// What decoding one object gave.
struct Node {
    kind: ObjectKind,
    children: Box<[u32]>,
    time: i64,
}

/// What an object reaches, read from its body: for the objects nothing
/// knew beforehand.
struct Decoder<'p> {
    pack: &'p Pack,
    /// Built for the first object decoded: none may be.
    names: OnceLock<NameIndex>,
    position_of_index: &'p [u32],
}

impl Decoder<'_> {
    fn node(&self, index: u32, kind: ObjectKind, body: &[u8]) -> Result<Node, ReachError> {
        let id = || self.pack.idx.oid_at(index);
        let mut children = Vec::new();
        let mut missing = None;
        for_each_reference(
            kind,
            body,
            self.pack.idx.hash_kind(),
            |child: ObjectId, role| {
                if !followed_by_walk(role) {
                    return;
                }
                let names = self.names.get_or_init(|| NameIndex::of_pack(self.pack));
                match names.find(self.pack, &child) {
                    Some(i) => children.push(self.position_of_index[i as usize]),
                    None => missing = missing.or(Some(child)),
                }
            },
        )
        .map_err(|error| ReachError::Malformed { id: id(), error })?;
        if let Some(missing) = missing {
            return Err(ReachError::NotClosed { id: id(), missing });
        }
        let time = if kind == ObjectKind::Commit {
            committer_time(body)
        } else {
            0
        };
        Ok(Node {
            kind,
            children: children.into_boxed_slice(),
            time,
        })
    }
}

/// Whether git's object walk follows a reference in this role: a
/// submodule commit is not in the repository, and a `mergetag` payload is
/// not read.
pub fn followed_by_walk(role: ReferenceRole) -> bool {
    match role {
        ReferenceRole::TreeEntry { gitlink } => !gitlink,
        ReferenceRole::MergetagObject => false,
        _ => true,
    }
}

/// What the caller learned of the object at an idx position before the
/// pack existed: its kind and committer time (0 unless a commit), with
/// the pack positions (by offset) of the objects it reaches pushed to the
/// vector; or `None` to have it read from the pack.
pub type Known<'a> = dyn Fn(u32, &mut Vec<u32>) -> Option<(ObjectKind, i64)> + Sync + 'a;

/// Delta bases kept per thread when a few objects are read on their own.
const READ_CACHE_BYTES: usize = 32 << 20;

impl<'k> Graph<'k> {
    /// Decodes every commit, tree and tag of `pack`, except those `known`
    /// answers for. Every object they reach must be in the pack: a bitmap
    /// needs the closure.
    pub fn of_pack(pack: &Pack, known: Option<&'k Known<'k>>) -> Result<Self, ReachError> {
        let by_offset = pack.entries_by_offset()?;
        let n = by_offset.len();
        let mut position_of_index = vec![0u32; n];
        let mut index_of_position = Vec::with_capacity(n);
        for (position, &(_, index)) in by_offset.iter().enumerate() {
            position_of_index[index as usize] = position as u32;
            index_of_position.push(index);
        }
        let (position_of_index, index_of_position) = match known {
            Some(known) => match Self::all_known(known, position_of_index, index_of_position) {
                Ok(graph) => return Ok(graph),
                Err(orders) => orders,
            },
            None => (position_of_index, index_of_position),
        };
        let nodes: Vec<OnceLock<Node>> = (0..n).map(|_| OnceLock::new()).collect();
        let node_of = |index: u32| &nodes[position_of_index[index as usize] as usize];
        let unknown: Vec<u32> = match known {
            None => (0..n as u32).collect(),
            Some(known) => (0..n as u32)
                .into_par_iter()
                .filter(|&index| {
                    let mut children = Vec::new();
                    let Some((kind, time)) = known(index, &mut children) else {
                        return true;
                    };
                    let children = children.into_boxed_slice();
                    let _ = node_of(index).set(Node {
                        kind,
                        children,
                        time,
                    });
                    false
                })
                .collect(),
        };
        let decoder = Decoder {
            pack,
            names: OnceLock::new(),
            position_of_index: &position_of_index,
        };
        let visit = |index: u32, _offset: u64, kind: ObjectKind, body: &[u8]| {
            if node_of(index).get().is_none() {
                let _ = node_of(index).set(decoder.node(index, kind, body)?);
            }
            Ok::<(), ReachError>(())
        };
        if unknown.len() > n / 8 {
            // Most of the pack: one walk of its delta trees.
            pack.traverse_kinds(&|kind| kind != ObjectKind::Blob, &visit)?;
        } else {
            // A few objects (made by the run, or left by an interrupted
            // one): each read on its own.
            unknown.par_iter().try_for_each_init(
                || (DeltaCache::new(READ_CACHE_BYTES), Vec::new()),
                |(cache, body), &index| {
                    let offset = pack.idx.offset_at(index);
                    let kind = pack.read_at(offset, cache, &|_| None, body)?;
                    match kind {
                        ObjectKind::Blob => Ok(()),
                        _ => visit(index, offset, kind, body),
                    }
                },
            )?;
        }

        let mut kinds = Vec::with_capacity(n);
        let mut commit_time = Vec::with_capacity(n);
        let mut edge_start = Vec::with_capacity(n + 1);
        let mut edges = Vec::new();
        edge_start.push(0);
        for node in nodes {
            match node.into_inner() {
                Some(node) => {
                    kinds.push(node.kind);
                    commit_time.push(node.time);
                    edges.extend_from_slice(&node.children);
                }
                None => {
                    kinds.push(ObjectKind::Blob);
                    commit_time.push(0);
                }
            }
            edge_start.push(edges.len() as u64);
        }
        Ok(Graph {
            kinds,
            edge_start,
            edges,
            tree_children: None,
            commit_time,
            position_of_index,
            index_of_position,
        })
    }

    /// The graph straight from `known`, when it answers for every entry
    /// (a run that translated every object it wrote): built in position
    /// order by chunks, with no node of its own per object. Otherwise the
    /// orders are handed back for the general path.
    fn all_known(
        known: &'k Known<'k>,
        position_of_index: Vec<u32>,
        index_of_position: Vec<u32>,
    ) -> Result<Self, (Vec<u32>, Vec<u32>)> {
        /// Positions per task: enough that a task's vectors are few.
        const CHUNK: usize = 1 << 14;
        struct Part {
            kinds: Vec<ObjectKind>,
            times: Vec<i64>,
            /// Where each position's children end in `edges`.
            ends: Vec<u64>,
            edges: Vec<u32>,
        }
        let parts: Option<Vec<Part>> = index_of_position
            .par_chunks(CHUNK)
            .map(|indices| {
                let mut part = Part {
                    kinds: Vec::with_capacity(indices.len()),
                    times: Vec::with_capacity(indices.len()),
                    ends: Vec::with_capacity(indices.len()),
                    edges: Vec::new(),
                };
                let mut children = Vec::new();
                for &index in indices {
                    children.clear();
                    let (kind, time) = known(index, &mut children)?;
                    part.kinds.push(kind);
                    part.times.push(time);
                    if kind != ObjectKind::Tree {
                        part.edges.extend_from_slice(&children);
                    }
                    part.ends.push(part.edges.len() as u64);
                }
                Some(part)
            })
            .collect();
        let Some(parts) = parts else {
            return Err((position_of_index, index_of_position));
        };
        let n = index_of_position.len();
        let total_edges = parts.iter().map(|p| p.edges.len()).sum();
        let mut kinds = Vec::with_capacity(n);
        let mut commit_time = Vec::with_capacity(n);
        let mut edge_start = Vec::with_capacity(n + 1);
        let mut edges = Vec::with_capacity(total_edges);
        edge_start.push(0);
        for part in parts {
            let base = edges.len() as u64;
            kinds.extend_from_slice(&part.kinds);
            commit_time.extend_from_slice(&part.times);
            edge_start.extend(part.ends.iter().map(|end| base + end));
            edges.extend_from_slice(&part.edges);
        }
        Ok(Graph {
            kinds,
            edge_start,
            edges,
            tree_children: Some(known),
            commit_time,
            position_of_index,
            index_of_position,
        })
    }

    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// The positions a commit or a tag reaches directly (a tree's are
    /// [`Self::children_into`]'s to give).
    pub fn children(&self, position: u32) -> &[u32] {
        let p = position as usize;
        debug_assert!(
            self.tree_children.is_none() || self.kinds[p] != ObjectKind::Tree,
            "a tree's children are asked for again"
        );
        &self.edges[self.edge_start[p] as usize..self.edge_start[p + 1] as usize]
    }

    /// The positions any object reaches directly, into `out` (emptied
    /// first).
    pub fn children_into(&self, position: u32, out: &mut Vec<u32>) {
        out.clear();
        match self.tree_children {
            Some(known) if self.kinds[position as usize] == ObjectKind::Tree => {
                let index = self.index_of_position[position as usize];
                // The graph was built from these answers, all given.
                let answered = known(index, out);
                debug_assert!(answered.is_some(), "a tree the records covered");
            }
            _ => out.extend_from_slice(self.children(position)),
        }
    }

    /// A commit's parents: its children other than its tree.
    pub fn parents(&self, commit: u32) -> impl Iterator<Item = u32> + '_ {
        self.children(commit)
            .iter()
            .copied()
            .filter(|&c| self.kinds[c as usize] == ObjectKind::Commit)
    }
}

/// The time of a commit's `committer` line (`... <email> SECONDS TZ`); 0
/// when there is none git could read, which sorts such commits last.
pub fn committer_time(body: &[u8]) -> i64 {
    let header_end = body
        .windows(2)
        .position(|w| w == b"\n\n")
        .unwrap_or(body.len());
    body[..header_end]
        .split(|&b| b == b'\n')
        .find_map(|line| line.strip_prefix(b"committer "))
        .and_then(|ident| {
            let after_email = &ident[ident.iter().rposition(|&b| b == b'>')? + 1..];
            let text = std::str::from_utf8(after_email).ok()?;
            text.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::{NameIndex, committer_time};
    use crate::hash::{HashKind, ObjectId};
    use crate::object::ObjectKind;
    use crate::pack::data::resolve::Pack;
    use crate::pack::data::write::pack_writer::PackWriter;

    /// A pack of one blob entry for each of `ids` (the bodies are not
    /// theirs: only the names matter here).
    fn pack_of(dir: &std::path::Path, ids: &[ObjectId]) -> Pack {
        let mut writer = PackWriter::create(dir, HashKind::Sha1, ids.len() as u32).unwrap();
        for id in ids {
            writer.add_object(*id, ObjectKind::Blob, b"x", 1).unwrap();
        }
        let written = writer.finish().unwrap();
        Pack::open(&written.idx_path, HashKind::Sha1).unwrap()
    }

    #[test]
    fn a_name_is_found_in_the_pack_asked_not_in_one_asked_before() {
        let dir = tempfile::tempdir().unwrap();
        let (first, shared) = (ObjectId::Sha1([1; 20]), ObjectId::Sha1([2; 20]));
        let both = pack_of(dir.path(), &[first, shared]);
        let only_shared = pack_of(dir.path(), &[shared]);
        // On one thread, as one worker meets both packs' trees in turn.
        let names = NameIndex::of_pack(&both);
        assert_eq!(names.find(&both, &shared), Some(1));
        let names = NameIndex::of_pack(&only_shared);
        assert_eq!(names.find(&only_shared, &shared), Some(0));
        assert_eq!(names.find(&only_shared, &first), None);
    }

    #[test]
    fn the_committer_time_is_read_from_the_header() {
        let body = b"tree 1\nauthor A <a> 5 +0000\ncommitter C <c> 1700000000 +0100\n\ncommitter X <x> 9 +0000\n";
        assert_eq!(committer_time(body), 1_700_000_000);
        assert_eq!(committer_time(b"tree 1\n\nbody"), 0);
    }
}
