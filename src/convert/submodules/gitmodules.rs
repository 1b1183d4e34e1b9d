//! Submodule names by path, from the superproject's `.gitmodules`.
//!
//! git keeps a submodule's repository under `modules/<name>`, where the
//! name is the subsection of `submodule.<name>.path` in `.gitmodules`, not
//! the path (they differ after `git submodule add --name`, or a `git mv`).
//! `--submodule PATH=REPO` names a submodule by path, so its name is looked
//! up here to place its conversion where git would look for it.
//!
//! Read from the work tree's `.gitmodules` when SOURCE has one, and from
//! the `.gitmodules` blob of every commit a ref (or HEAD) points to; HEAD's
//! wins when two disagree, as it is the checkout users see.

use std::collections::BTreeMap;
use std::path::Path;

use crate::convert::error::ConvertError;
use crate::convert::source_objects::inventory::Inventory;
use crate::convert::source_objects::table::ObjectTable;
use crate::gitconfig::GitConfig;
use crate::hash::ObjectId;
use crate::object::{ObjectKind, ReferenceRole, for_each_reference, tree_entries};
use crate::pack::DeltaCache;
use crate::refs::read_source_refs;
use crate::repo::SourceRepo;

/// Tags are peeled at most this deep (a chain of tags of tags).
const MAX_PEEL: usize = 16;

/// path -> name of every submodule the `.gitmodules` files know.
pub fn names_by_path(
    source: &SourceRepo,
    work_tree: Option<&Path>,
) -> Result<BTreeMap<String, String>, ConvertError> {
    let mut names = BTreeMap::new();
    let refs = read_source_refs(&source.git_dir, source.object_format)?;
    let (inventory, table) = Inventory::open(source)?;
    let mut reader = Reader {
        inventory: &inventory,
        table: &table,
        cache: DeltaCache::new(16 << 20),
        body: Vec::new(),
    };
    // Later inserts win: other tips first, then HEAD, then the work tree.
    let tips = refs
        .effective_refs()
        .into_iter()
        .filter_map(|(_, t)| t.id());
    for id in tips.chain(refs.head.id()) {
        if let Some(text) = reader.gitmodules_at(id) {
            add_names(&text, &mut names);
        }
    }
    if let Some(file) = work_tree.map(|w| w.join(".gitmodules"))
        && let Ok(text) = std::fs::read(&file)
    {
        add_names(&text, &mut names);
    }
    Ok(names)
}

/// Adds `submodule.<name>.path` pairs of a `.gitmodules` text. A file that
/// does not parse is skipped: git ignores it too, and the conversion of the
/// objects themselves does not depend on it.
fn add_names(text: &[u8], names: &mut BTreeMap<String, String>) {
    let Ok(config) = GitConfig::parse(text, Path::new(".gitmodules")) else {
        return;
    };
    for (key, value) in config.entries() {
        if let Some(name) = key
            .strip_prefix("submodule.")
            .and_then(|k| k.strip_suffix(".path"))
            && !name.is_empty()
        {
            names.insert(value.trim_end_matches('/').to_string(), name.to_string());
        }
    }
}

struct Reader<'a> {
    inventory: &'a Inventory,
    table: &'a ObjectTable,
    cache: DeltaCache,
    body: Vec<u8>,
}

impl Reader<'_> {
    fn read(&mut self, id: ObjectId) -> Option<ObjectKind> {
        let i = self.table.find(&id)?;
        self.inventory
            .read(self.table, i, &mut self.cache, &mut self.body)
            .ok()
    }

    /// The `.gitmodules` blob of the commit `id` names (tags peeled).
    fn gitmodules_at(&mut self, mut id: ObjectId) -> Option<Vec<u8>> {
        for _ in 0..MAX_PEEL {
            let kind = self.read(id)?;
            let role = match kind {
                ObjectKind::Tag => ReferenceRole::TagObject,
                ObjectKind::Commit => ReferenceRole::CommitTree,
                _ => return None,
            };
            let mut next = None;
            let hash = self.table.direction().source();
            for_each_reference(kind, &self.body, hash, |r, rr| {
                if rr == role && next.is_none() {
                    next = Some(r);
                }
            })
            .ok()?;
            id = next?;
            if kind == ObjectKind::Commit {
                return self.blob_in_tree(id, b".gitmodules");
            }
        }
        None
    }

    fn blob_in_tree(&mut self, tree: ObjectId, name: &[u8]) -> Option<Vec<u8>> {
        if self.read(tree)? != ObjectKind::Tree {
            return None;
        }
        let blob = tree_entries(&self.body, self.table.direction().source())
            .flatten()
            .find(|e| e.name == name && e.mode.starts_with(b"100"))?
            .id;
        (self.read(blob)? == ObjectKind::Blob).then(|| std::mem::take(&mut self.body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_subsection_not_the_path() {
        let mut names = BTreeMap::new();
        add_names(
            b"[submodule \"lib.core\"]\n\tpath = libs/core/\n\turl = ../core\n[submodule \"x\"]\n\turl = ../x\n",
            &mut names,
        );
        assert_eq!(names.len(), 1);
        assert_eq!(names["libs/core"], "lib.core");
    }
}
