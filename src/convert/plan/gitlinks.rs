//! Explaining unmapped gitlinks: which submodule paths, how many pinned
//! commits, an example superproject commit and the refs that reach one
//! for each (`reaching_refs.rs`).
//!
//! Answered from what the scan recorded, so that the refusal comes right
//! after the scan: each gitlink's tree and entry name, and the edges
//! between trees and commits. One walk down those edges from every
//! commit finds, for each tree, the tree or commit it was reached from;
//! that chain leads each offending tree up to a commit. Only the trees on
//! the chains of nested gitlinks are read again, to name their directories
//! (a gitlink at the root needs none). Walking every commit's tree instead
//! took 70 s on git.git with its pull-request refs; from the records, the
//! refusal of git.git's branches and tags (33,745 trees pinning
//! `sha1collisiondetection`) came 1.3 s after the scan, on a busy 2-core
//! machine.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use super::edge_index::EdgeIndex;
use super::reaching_refs::RefReach;
use crate::convert::error::ConvertError;
use crate::convert::error::{Refusal, UnmappedSubmodule, reach_line};
use crate::convert::scan::UnmappedGitlink;
use crate::convert::source_objects::inventory::Inventory;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::ObjectId;
use crate::object::{ObjectKind, TreeMode, tree_entries};
use crate::pack::DeltaCache;

/// What the explanation reads: SOURCE's objects and the scan's edges.
pub struct Recorded<'a> {
    pub inventory: &'a Inventory,
    pub table: &'a ObjectTable,
    /// The scan's (dependent, dependency) pairs, indexed.
    pub edges: &'a EdgeIndex<'a>,
}

/// Builds the refusal for gitlinks whose submodule commits have no name in
/// DEST's hash: one line per submodule path.
pub fn unmapped_gitlinks_error(
    recorded: Recorded<'_>,
    reach: &RefReach<'_>,
    problems: &[UnmappedGitlink],
) -> ConvertError {
    let table = recorded.table;
    let wanted: HashSet<u32> = problems.iter().map(|p| p.tree).collect();
    let found = locate_trees(recorded, &wanted);
    // path -> (pinned commits, example superproject commit, the trees)
    type Pinned = (HashSet<ObjectId>, Option<ObjectId>, Vec<u32>);
    let mut by_path: BTreeMap<String, Pinned> = BTreeMap::new();
    for p in problems {
        let name = String::from_utf8_lossy(&p.name).into_owned();
        let (commit, path) = match found.get(&p.tree) {
            Some((commit, dir)) if dir.is_empty() => (Some(*commit), name),
            Some((commit, dir)) => (Some(*commit), format!("{dir}/{name}")),
            None => (
                None,
                format!(
                    "{name} (in tree {} not reachable from any commit)",
                    table.source_id(p.tree)
                ),
            ),
        };
        let slot = by_path.entry(path).or_default();
        slot.0.insert(p.target);
        slot.1 = slot.1.or(commit);
        slot.2.push(p.tree);
    }
    let trees: Vec<Vec<u32>> = by_path.values().map(|(.., trees)| trees.clone()).collect();
    let (reaching, all) = reach.trace(&trees);
    let submodules: Vec<UnmappedSubmodule> = by_path
        .into_iter()
        .zip(reaching)
        .map(|((path, (targets, pinned_by, _)), reached_from)| {
            let mut commits: Vec<ObjectId> = targets.into_iter().collect();
            commits.sort();
            UnmappedSubmodule {
                path,
                commits,
                pinned_by,
                reached_from,
            }
        })
        .collect();
    let mut msg = format!(
        "cannot convert: gitlinks in {} tree(s) name submodule commits that have no {} name \
         (git refuses these too: the submodule must be converted first)",
        wanted.len(),
        table.direction().dest()
    );
    for sub in &submodules {
        msg.push_str(&format!(
            "\n  submodule path {}: {} distinct commit(s), e.g. {}",
            sub.path,
            sub.commits.len(),
            sub.commits[0]
        ));
        if let Some(c) = sub.pinned_by {
            msg.push_str(&format!(", pinned by commit {c}"));
        }
        msg.push_str(&format!("; {}", sub.reached_from));
    }
    msg.push_str(
        "\nnothing was written; convert each submodule first and pass its map with \
         --submodule-map <SUBMODULE-DEST>/rehash/map.sqlite (or a file of '<sha1> <sha256>' lines), \
         or accept lossy surrogate names with --unmapped-gitlinks=placeholder",
    );
    msg.push_str(&reach_line("the trees that pin them", &all));
    Refusal::UnmappedGitlinks {
        message: msg,
        submodules,
        reach: all,
    }
    .into()
}

/// No object reached yet.
const UNREACHED: u32 = u32::MAX;

/// For each wanted tree that a commit reaches: that commit and the tree's
/// directory path in it.
fn locate_trees(recorded: Recorded<'_>, wanted: &HashSet<u32>) -> HashMap<u32, (ObjectId, String)> {
    let Recorded {
        inventory,
        table,
        edges,
    } = recorded;
    let references = |from: u32| edges.references(from);
    // Breadth first from every commit (in table order), down to trees:
    // `came_from[t]` is the tree or commit that tree `t` was first reached
    // from; a commit is its own.
    let mut came_from = vec![UNREACHED; table.len()];
    let mut queue: VecDeque<u32> = table
        .indices()
        .filter(|&i| table.kind(i) == Some(ObjectKind::Commit))
        .collect();
    for &commit in &queue {
        came_from[commit as usize] = commit;
    }
    let mut left = wanted.len();
    while let Some(at) = queue.pop_front() {
        if left == 0 {
            break;
        }
        for dep in references(at) {
            if table.kind(dep) == Some(ObjectKind::Tree) && came_from[dep as usize] == UNREACHED {
                came_from[dep as usize] = at;
                left -= usize::from(wanted.contains(&dep));
                queue.push_back(dep);
            }
        }
    }
    let mut namer = DirNamer {
        inventory,
        table,
        came_from: &came_from,
        dirs: HashMap::new(),
        cache: DeltaCache::new(16 << 20),
        body: Vec::new(),
    };
    wanted
        .iter()
        .filter(|&&tree| came_from[tree as usize] != UNREACHED)
        .map(|&tree| {
            let (commit, dir) = namer.locate(tree);
            (tree, (table.source_id(commit), dir))
        })
        .collect()
}

/// Names the directories of reached trees along the chains the walk left,
/// reading each tree on a chain at most once.
struct DirNamer<'a> {
    inventory: &'a Inventory,
    table: &'a ObjectTable,
    came_from: &'a [u32],
    /// Tree -> (its commit, its directory path), for trees named so far.
    dirs: HashMap<u32, (u32, String)>,
    cache: DeltaCache,
    body: Vec<u8>,
}

impl DirNamer<'_> {
    /// The commit whose walk reached `tree` and the tree's path there
    /// (empty for a root tree).
    fn locate(&mut self, tree: u32) -> (u32, String) {
        // Up the chain to a tree named already, or to a commit's root tree;
        // `below` collects the trees to name on the way back down.
        let mut below = Vec::new();
        let mut at = tree;
        let (commit, mut dir) = loop {
            if let Some(known) = self.dirs.get(&at) {
                break known.clone();
            }
            let from = self.came_from[at as usize];
            if self.table.kind(from) == Some(ObjectKind::Commit) {
                self.dirs.insert(at, (from, String::new()));
                break (from, String::new());
            }
            below.push(at);
            at = from;
        };
        for &child in below.iter().rev() {
            let name = self.entry_name(self.came_from[child as usize], child);
            dir = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            self.dirs.insert(child, (commit, dir.clone()));
        }
        (commit, dir)
    }

    /// The name under which tree `parent` holds tree `child`.
    fn entry_name(&mut self, parent: u32, child: u32) -> String {
        let want = self.table.source_id(child);
        let read = self
            .inventory
            .read(self.table, parent, &mut self.cache, &mut self.body);
        let found = read.ok().and_then(|_| {
            tree_entries(&self.body, want.kind())
                .flatten()
                .find(|e| TreeMode::parse(e.mode).is_tree() && e.id == want)
                .map(|e| String::from_utf8_lossy(e.name).into_owned())
        });
        // The scan read this tree and recorded the edge, so it names the
        // child; should it not (read back differently), say which tree.
        found.unwrap_or_else(|| format!("<a directory of tree {}>", self.table.source_id(parent)))
    }
}
