//! docs/architecture.md is the map of src/ as it is: every folder and
//! every file compiled into the crate (a folder's mod.rs aside: its folder
//! stands for it) is named on it, and every file it names exists.

use std::collections::BTreeSet;
use std::path::Path;

use crate::architecture_doc::{ArchitectureDoc, DOC, Mention};
use crate::source_tree::SourceTree;

#[test]
fn the_map_names_every_folder_and_file_of_src_and_nothing_else() {
    let tree = SourceTree::read();
    let doc = ArchitectureDoc::read();
    let mut problems = Vec::new();
    let mut named: BTreeSet<String> = BTreeSet::new();
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    for mention in &doc.mentions {
        // A path from the repository's root (`tests/it/fuzz_smoke.rs`).
        if repository.join(&mention.name).exists() {
            continue;
        }
        let found = resolve(&tree, mention);
        match found.as_slice() {
            [one] => {
                named.insert(one.clone());
            }
            // A folder name that is no folder of src/ is one of DEST's
            // (`rehash/`, `objects/`): only an entry's head must be one.
            [] if mention.name.ends_with('/') && !mention.head => {}
            [] => problems.push(format!(
                "{DOC}:{} names `{}` (in src/{}), which src/ does not have",
                mention.line, mention.name, mention.place
            )),
            // `mod.rs`, `error.rs`: names that are everywhere; the entry of
            // each folder names its own.
            _ => {}
        }
    }
    for folder in &tree.folders {
        if !named.contains(folder) {
            problems.push(format!("src/{folder} is not on the map ({DOC})"));
        }
    }
    for file in tree.files.keys() {
        let stands_for_its_folder = file.ends_with("/mod.rs");
        if !stands_for_its_folder && !tree.test_only(file) && !named.contains(file) {
            problems.push(format!("src/{file} is not on the map ({DOC})"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The paths of src/ a name stands for: the one at its place, else those
/// under its place that end with it, else those anywhere that do.
fn resolve(tree: &SourceTree, mention: &Mention) -> Vec<String> {
    let paths: Vec<&String> = if mention.name.ends_with('/') {
        tree.folders.iter().collect()
    } else {
        tree.files.keys().collect()
    };
    let exact = format!("{}{}", mention.place, mention.name);
    if paths.iter().any(|path| **path == exact) {
        return vec![exact];
    }
    let tail = format!("/{}", mention.name);
    let ending_under = |place: &str| -> Vec<String> {
        paths
            .iter()
            .filter(|path| path.starts_with(place))
            .filter(|path| path.ends_with(&tail) || ***path == mention.name)
            .map(|path| path.to_string())
            .collect()
    };
    let under_place = ending_under(&mention.place);
    if under_place.is_empty() {
        ending_under("")
    } else {
        under_place
    }
}
