//! The files and folders of src/, each parsed once (syn), and which of
//! them are compiled only for tests (declared under `#[cfg(test)]`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// src/ as the tests see it: paths relative to src/, folders ending in `/`.
pub struct SourceTree {
    pub files: BTreeMap<String, syn::File>,
    pub folders: BTreeSet<String>,
}

impl SourceTree {
    pub fn read() -> SourceTree {
        let root = src_dir();
        let mut tree = SourceTree {
            files: BTreeMap::new(),
            folders: BTreeSet::new(),
        };
        walk(&root, "", &mut tree);
        tree
    }

    /// Whether `file` is compiled only for tests: it, or the folder that
    /// holds it, is declared by a `#[cfg(test)] mod` line.
    pub fn test_only(&self, file: &str) -> bool {
        let mut path = file.strip_suffix("/mod.rs").unwrap_or(file).to_string();
        loop {
            let (parent, name) = match path.rsplit_once('/') {
                Some((parent, name)) => (parent.to_string(), name.trim_end_matches(".rs")),
                None => (String::new(), path.trim_end_matches(".rs")),
            };
            if let Some(declaring) = self.declaring_file(&parent, name)
                && declares_for_tests(&self.files[&declaring], name)
            {
                return true;
            }
            if parent.is_empty() {
                return false;
            }
            path = parent;
        }
    }

    /// The file that declares module `name` of folder `parent` (`""` for
    /// src/ itself: lib.rs, or main.rs for the binary's modules).
    fn declaring_file(&self, parent: &str, name: &str) -> Option<String> {
        let candidates = if parent.is_empty() {
            vec!["lib.rs".to_string(), "main.rs".to_string()]
        } else {
            vec![format!("{parent}/mod.rs"), format!("{parent}.rs")]
        };
        candidates
            .into_iter()
            .find(|f| self.files.get(f).is_some_and(|ast| declares(ast, name)))
    }
}

pub fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn walk(dir: &Path, rel: &str, tree: &mut SourceTree) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            let folder = format!("{rel}{name}/");
            tree.folders.insert(folder.clone());
            walk(&path, &folder, tree);
        } else if name.ends_with(".rs") {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let ast = syn::parse_file(&text)
                .unwrap_or_else(|e| panic!("cannot parse {}: {e}", path.display()));
            tree.files.insert(format!("{rel}{name}"), ast);
        }
    }
}

fn module_items<'a>(ast: &'a syn::File, name: &'a str) -> impl Iterator<Item = &'a syn::ItemMod> {
    ast.items.iter().filter_map(move |item| match item {
        syn::Item::Mod(m) if m.ident == name && m.content.is_none() => Some(m),
        _ => None,
    })
}

fn declares(ast: &syn::File, name: &str) -> bool {
    module_items(ast, name).next().is_some()
}

fn declares_for_tests(ast: &syn::File, name: &str) -> bool {
    module_items(ast, name).any(|m| m.attrs.iter().any(is_cfg_test))
}

pub fn is_cfg_test(attr: &syn::Attribute) -> bool {
    match &attr.meta {
        syn::Meta::List(list) => list.path.is_ident("cfg") && list.tokens.to_string() == "test",
        _ => false,
    }
}
