//! src/'s file import graph: for each file, the files whose items it
//! names, in `use` items, in paths anywhere in its code (tests included)
//! and in the arguments of macros. A name imported through a folder's
//! `pub use` of its own file's item (the folder's face) counts as an
//! import of the file that defines it, as the compiler sees it; the face
//! itself imports nothing.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use crate::source_tree::SourceTree;

/// The library (lib.rs and what it declares) or the binary (main.rs and
/// cli/): `crate::` names a module of its own crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Crate {
    Lib,
    Bin,
}

/// A path from a crate's root: `(Lib, ["pack", "data", "file"])`.
type Absolute = (Crate, Vec<String>);

/// File -> the files it imports -> the paths, as written, that do.
pub struct ImportGraph {
    pub edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

#[derive(Default)]
struct FileFacts {
    /// The names of the items it defines at its top level.
    defines: BTreeSet<String>,
    /// Its `pub use` items: the name each gives, and what it names.
    reexports: BTreeMap<String, Absolute>,
    reexported_globs: Vec<Absolute>,
    /// Every path it names: where it leads, as written, and whether it is
    /// the face of a folder (a mod.rs re-export of its own folder's item).
    named: Vec<(Absolute, String, bool)>,
}

impl ImportGraph {
    pub fn of(tree: &SourceTree) -> ImportGraph {
        let modules: BTreeMap<Absolute, String> = tree
            .files
            .keys()
            .map(|file| (module_of(file), file.clone()))
            .collect();
        let facts: BTreeMap<&String, FileFacts> = tree
            .files
            .iter()
            .map(|(file, ast)| (file, collect(file, ast, &modules)))
            .collect();
        let resolver = Resolver {
            modules: &modules,
            facts: &facts,
        };
        let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
        for (file, facts) in &facts {
            for (path, written, face) in &facts.named {
                if *face {
                    continue;
                }
                if let Some(target) = resolver.file_of(path.clone())
                    && target != **file
                {
                    edges
                        .entry((*file).clone())
                        .or_default()
                        .entry(target)
                        .or_default()
                        .insert(written.clone());
                }
            }
        }
        ImportGraph { edges }
    }
}

/// The module a file is: main.rs and cli/ are the binary's, the rest the
/// library's; a folder's mod.rs is the folder.
fn module_of(file: &str) -> Absolute {
    let krate = if file == "main.rs" || file.starts_with("cli/") {
        Crate::Bin
    } else {
        Crate::Lib
    };
    let mut segments: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if matches!(
        segments.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        segments.pop();
    }
    (krate, segments)
}

struct Resolver<'a> {
    modules: &'a BTreeMap<Absolute, String>,
    facts: &'a BTreeMap<&'a String, FileFacts>,
}

impl Resolver<'_> {
    /// The file that defines what `path` names: the deepest module on the
    /// path, then through its re-exports (named, then globs) while it
    /// re-exports the next name.
    fn file_of(&self, mut path: Absolute) -> Option<String> {
        let mut file = None;
        for _ in 0..16 {
            let (depth, module_file) = (0..=path.1.len()).rev().find_map(|depth| {
                let prefix = (path.0, path.1[..depth].to_vec());
                self.modules.get(&prefix).map(|file| (depth, file))
            })?;
            file = Some(module_file.clone());
            let facts = &self.facts[module_file];
            let Some(name) = path.1.get(depth) else {
                break;
            };
            let rest = &path.1[depth + 1..];
            let next = facts.reexports.get(name).cloned().or_else(|| {
                if facts.defines.contains(name) {
                    return None;
                }
                facts
                    .reexported_globs
                    .iter()
                    .find(|glob| self.provides(glob, name))
                    .map(|glob| (glob.0, [glob.1.clone(), vec![name.clone()]].concat()))
            });
            match next {
                Some((krate, mut target)) => {
                    target.extend_from_slice(rest);
                    path = (krate, target);
                }
                None => break,
            }
        }
        file
    }

    /// Whether the module at `module` defines or re-exports `name`.
    fn provides(&self, module: &Absolute, name: &str) -> bool {
        self.modules.get(module).is_some_and(|file| {
            let facts = &self.facts[file];
            facts.defines.contains(name) || facts.reexports.contains_key(name)
        })
    }
}

fn collect(file: &str, ast: &syn::File, modules: &BTreeMap<Absolute, String>) -> FileFacts {
    let (krate, module) = module_of(file);
    let mut collector = Collector {
        krate,
        own_module: module.clone(),
        current: module,
        inline_depth: 0,
        is_face: file == "lib.rs" || file == "main.rs" || file.ends_with("/mod.rs"),
        modules,
        facts: FileFacts {
            defines: ast.items.iter().filter_map(defined_name).collect(),
            ..FileFacts::default()
        },
    };
    collector.visit_file(ast);
    collector.facts
}

fn defined_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        syn::Item::Mod(i) => &i.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

struct Collector<'a> {
    krate: Crate,
    own_module: Vec<String>,
    /// The module the visitor is in: the file's, or an inline one in it.
    current: Vec<String>,
    inline_depth: usize,
    /// lib.rs, main.rs or a mod.rs: its `pub use` of its own folder's
    /// items is the folder's face.
    is_face: bool,
    modules: &'a BTreeMap<Absolute, String>,
    facts: FileFacts,
}

impl Collector<'_> {
    /// Where a path written here leads, if into this project's crates.
    fn absolute(&self, segments: &[String]) -> Option<Absolute> {
        let first = segments.first()?.as_str();
        match first {
            "crate" => Some((self.krate, segments[1..].to_vec())),
            "git_rehash" => Some((Crate::Lib, segments[1..].to_vec())),
            "super" | "self" => {
                let mut module = self.current.clone();
                let mut rest = segments;
                while let Some(first) = rest.first() {
                    match first.as_str() {
                        "super" => {
                            module.pop();
                        }
                        "self" => {}
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                module.extend_from_slice(rest);
                Some((self.krate, module))
            }
            // A child module's item (`chunking::Chunk` in its folder's
            // mod.rs); a lone name is a local, not a module.
            _ if segments.len() > 1 => {
                let child = [self.current.clone(), vec![first.to_string()]].concat();
                self.modules.contains_key(&(self.krate, child)).then(|| {
                    (
                        self.krate,
                        [self.current.clone(), segments.to_vec()].concat(),
                    )
                })
            }
            _ => None,
        }
    }

    fn name(&mut self, segments: &[String], face: bool) {
        if let Some(path) = self.absolute(segments) {
            self.facts.named.push((path, segments.join("::"), face));
        }
    }

    /// Paths in a macro's arguments (`assert!(matches!(x, crate::a::B))`),
    /// which syn leaves as tokens: `crate`, `super`, `self` or
    /// `git_rehash` followed by `::name` pairs.
    fn name_in_tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut at = 0;
        while at < trees.len() {
            if let TokenTree::Group(group) = &trees[at] {
                self.name_in_tokens(group.stream());
            }
            let starts_path = matches!(&trees[at], TokenTree::Ident(i)
                if ["crate", "super", "self", "git_rehash"].contains(&i.to_string().as_str()));
            if !starts_path {
                at += 1;
                continue;
            }
            let mut segments = vec![trees[at].to_string()];
            let mut next = at + 1;
            while let [
                TokenTree::Punct(a),
                TokenTree::Punct(b),
                TokenTree::Ident(name),
                ..,
            ] = &trees[next.min(trees.len())..]
                && a.as_char() == ':'
                && b.as_char() == ':'
            {
                segments.push(name.to_string());
                next += 3;
            }
            if segments.len() > 1 {
                self.name(&segments, false);
            }
            at = next;
        }
    }
}

/// The paths a `use` tree names, each with the name it binds (`None` for
/// a glob).
fn use_paths(tree: &syn::UseTree, prefix: &[String], out: &mut Vec<(Vec<String>, Option<String>)>) {
    let joined = |name: &syn::Ident| {
        if name == "self" {
            prefix.to_vec()
        } else {
            [prefix, &[name.to_string()]].concat()
        }
    };
    match tree {
        syn::UseTree::Path(p) => use_paths(&p.tree, &joined(&p.ident), out),
        syn::UseTree::Name(n) => {
            let path = joined(&n.ident);
            let bound = path.last().cloned();
            out.push((path, bound));
        }
        syn::UseTree::Rename(r) => out.push((joined(&r.ident), Some(r.rename.to_string()))),
        syn::UseTree::Glob(_) => out.push((prefix.to_vec(), None)),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_paths(t, prefix, out)),
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if item.leading_colon.is_some() {
            return;
        }
        let public = !matches!(item.vis, syn::Visibility::Inherited);
        let mut paths = Vec::new();
        use_paths(&item.tree, &[], &mut paths);
        for (segments, bound) in paths {
            let Some(path) = self.absolute(&segments) else {
                continue;
            };
            if public && self.inline_depth == 0 {
                match bound {
                    Some(name) => {
                        self.facts.reexports.insert(name, path.clone());
                    }
                    None => self.facts.reexported_globs.push(path.clone()),
                }
            }
            let face = public
                && self.is_face
                && self.inline_depth == 0
                && path.0 == self.krate
                && path.1.starts_with(&self.own_module);
            self.name(&segments, face);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.name(&segments, false);
        }
        syn::visit::visit_path(self, path);
    }

    /// `pub(crate)`, `pub(super)`: a visibility names no item.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.name_in_tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_none() {
            return;
        }
        self.current.push(item.ident.to_string());
        self.inline_depth += 1;
        syn::visit::visit_item_mod(self, item);
        self.inline_depth -= 1;
        self.current.pop();
    }
}
