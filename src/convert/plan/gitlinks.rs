//! Explaining unmapped gitlinks: which submodule paths, how many pinned
//! commits, and an example superproject commit for each.
//!
//! Runs only on the error path, so it may re-read trees: it walks every
//! commit's tree until it has found a path to each offending tree.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::convert::ConvertError;
use crate::convert::error::{Refusal, UnmappedSubmodule};
use crate::convert::objects::inventory::Inventory;
use crate::convert::objects::table::ObjectTable;
use crate::convert::scan::UnmappedGitlink;
use crate::hash::{HashKind, ObjectId};
use crate::object::{ObjectKind, ReferenceRole, for_each_reference, tree_entries};
use crate::pack::DeltaCache;

/// Builds the refusal for gitlinks whose submodule commits have no SHA-256
/// name: one line per submodule path.
pub fn unmapped_gitlinks_error(
    inventory: &Inventory,
    table: &ObjectTable,
    problems: &[UnmappedGitlink],
) -> ConvertError {
    let wanted: HashSet<u32> = problems.iter().map(|p| p.tree).collect();
    let found = locate_trees(inventory, table, &wanted);
    // path -> (pinned commits, example superproject commit)
    let mut by_path: BTreeMap<String, (HashSet<ObjectId>, Option<ObjectId>)> = BTreeMap::new();
    for p in problems {
        let name = String::from_utf8_lossy(&p.name).into_owned();
        let (commit, path) = match found.get(&p.tree) {
            Some((commit, dir)) if dir.is_empty() => (Some(*commit), name),
            Some((commit, dir)) => (Some(*commit), format!("{dir}/{name}")),
            None => (
                None,
                format!(
                    "{name} (in tree {} not reachable from any commit)",
                    table.sha1(p.tree)
                ),
            ),
        };
        let slot = by_path.entry(path).or_default();
        slot.0.insert(p.target);
        slot.1 = slot.1.or(commit);
    }
    let submodules: Vec<UnmappedSubmodule> = by_path
        .into_iter()
        .map(|(path, (targets, pinned_by))| {
            let mut commits: Vec<ObjectId> = targets.into_iter().collect();
            commits.sort();
            UnmappedSubmodule {
                path,
                commits,
                pinned_by,
            }
        })
        .collect();
    let mut msg = format!(
        "cannot convert: gitlinks in {} tree(s) name submodule commits that have no SHA-256 name \
         (git refuses these too: the submodule must be converted first)",
        wanted.len()
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
    }
    msg.push_str(
        "\nnothing was written; convert each submodule first and pass its map with \
         --submodule-map <SUBMODULE-DEST>/rehash/map.sqlite (or a file of '<sha1> <sha256>' lines), \
         or accept lossy surrogate names with --unmapped-gitlinks=placeholder",
    );
    Refusal::UnmappedGitlinks {
        message: msg,
        submodules,
    }
    .into()
}

/// For each wanted tree: a commit whose tree reaches it, and its directory path.
fn locate_trees(
    inventory: &Inventory,
    table: &ObjectTable,
    wanted: &HashSet<u32>,
) -> HashMap<u32, (ObjectId, String)> {
    let mut found = HashMap::new();
    let mut visited = HashSet::new();
    let mut cache = DeltaCache::new(64 << 20);
    let mut body = Vec::new();
    for commit in table
        .indices()
        .filter(|&i| table.kind(i) == Some(ObjectKind::Commit))
    {
        if found.len() == wanted.len() {
            break;
        }
        if inventory
            .read(table, commit, &mut cache, &mut body)
            .is_err()
        {
            continue;
        }
        let mut root = None;
        let _ = for_each_reference(ObjectKind::Commit, &body, HashKind::Sha1, |id, role| {
            if role == ReferenceRole::CommitTree {
                root = table.find_id(&id);
            }
        });
        let Some(root) = root else { continue };
        let mut stack = vec![(root, String::new())];
        while let Some((tree, path)) = stack.pop() {
            if !visited.insert(tree) {
                continue;
            }
            if wanted.contains(&tree) {
                found
                    .entry(tree)
                    .or_insert((table.sha1(commit), path.clone()));
            }
            if inventory.read(table, tree, &mut cache, &mut body).is_err() {
                continue;
            }
            for entry in tree_entries(&body, HashKind::Sha1).flatten() {
                if let Some(sub) = table.find_id(&entry.id)
                    && table.kind(sub) == Some(ObjectKind::Tree)
                {
                    let name = String::from_utf8_lossy(entry.name);
                    let sub_path = if path.is_empty() {
                        name.into_owned()
                    } else {
                        format!("{path}/{name}")
                    };
                    stack.push((sub, sub_path));
                }
            }
        }
    }
    found
}
