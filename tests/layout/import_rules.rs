//! How src/'s files may import one another: no file imports a file that
//! imports it, directly or in a ring, and a layer imports only those below
//! it in docs/architecture.md's order of layers (the top-level modules;
//! the rooms of `convert/`).

use std::collections::BTreeMap;

use crate::architecture_doc::{ArchitectureDoc, DOC, Layering};
use crate::import_graph::ImportGraph;
use crate::source_tree::SourceTree;

#[test]
fn no_file_imports_a_file_that_imports_it() {
    let graph = ImportGraph::of(&SourceTree::read());
    let rings = rings(&graph);
    let mut report = Vec::new();
    for ring in &rings {
        report.push(format!(
            "these files import one another: {}",
            ring.join(", ")
        ));
        for from in ring {
            for (to, paths) in &graph.edges[from] {
                if ring.contains(to) {
                    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
                    report.push(format!("  src/{from} -> src/{to}: {}", paths.join(", ")));
                }
            }
        }
    }
    assert!(rings.is_empty(), "{}", report.join("\n"));
}

#[test]
fn each_layer_imports_only_the_layers_below_it() {
    let graph = ImportGraph::of(&SourceTree::read());
    let mut problems = Vec::new();
    for layering in &ArchitectureDoc::read().layerings {
        problems.extend(imports_upward(&graph, layering));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The imports between two layers of `layering`'s place that go up, and
/// the files of the place that are in none of its layers.
fn imports_upward(graph: &ImportGraph, layering: &Layering) -> Vec<String> {
    let place = &layering.place;
    let shown = if place.is_empty() { "src/" } else { place };
    // The layer of a file of the place: the folder it is in, or itself.
    let layer_of = |file: &str| -> Option<(String, Option<usize>)> {
        let inside = file.strip_prefix(place.as_str())?;
        let layer = match inside.split_once('/') {
            Some((folder, _)) => format!("{folder}/"),
            None => inside.to_string(),
        };
        let position = layering.layers.iter().position(|l| *l == layer);
        Some((layer, position))
    };
    let mut problems = Vec::new();
    for (from, targets) in &graph.edges {
        // The binary (main.rs, cli/) stands on the whole library, and
        // lib.rs only declares its modules.
        if place.is_empty() && (from == "main.rs" || from == "lib.rs" || from.starts_with("cli/")) {
            continue;
        }
        let Some((from_layer, from_position)) = layer_of(from) else {
            continue;
        };
        let Some(from_position) = from_position else {
            problems.push(format!(
                "src/{place}{from_layer} is not among the layers of {shown} in {DOC}"
            ));
            continue;
        };
        for (to, paths) in targets {
            let Some((to_layer, to_position)) = layer_of(to) else {
                continue;
            };
            if to_layer != from_layer && to_position.is_none_or(|to| to > from_position) {
                let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
                problems.push(format!(
                    "src/{from} imports src/{to} ({}), but {to_layer} is not below {from_layer} \
                     among the layers of {shown} in {DOC}",
                    paths.join(", ")
                ));
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// The sets of files that reach one another (Tarjan's strongly connected
/// components of more than one file), each sorted.
fn rings(graph: &ImportGraph) -> Vec<Vec<String>> {
    struct Search<'a> {
        graph: &'a ImportGraph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        rings: Vec<Vec<String>>,
    }
    impl<'a> Search<'a> {
        fn visit(&mut self, file: &'a str) {
            let index = self.index.len();
            self.index.insert(file, index);
            self.low.insert(file, index);
            self.stack.push(file);
            for to in self
                .graph
                .edges
                .get(file)
                .into_iter()
                .flat_map(|t| t.keys())
            {
                if !self.index.contains_key(to.as_str()) {
                    self.visit(to);
                    let low = self.low[file].min(self.low[to.as_str()]);
                    self.low.insert(file, low);
                } else if self.stack.contains(&to.as_str()) {
                    let low = self.low[file].min(self.index[to.as_str()]);
                    self.low.insert(file, low);
                }
            }
            if self.low[file] == self.index[file] {
                let at = self.stack.iter().rposition(|f| *f == file).unwrap();
                let mut ring: Vec<String> = self.stack.drain(at..).map(str::to_string).collect();
                if ring.len() > 1 {
                    ring.sort();
                    self.rings.push(ring);
                }
            }
        }
    }
    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        rings: Vec::new(),
    };
    for file in graph.edges.keys() {
        if !search.index.contains_key(file.as_str()) {
            search.visit(file);
        }
    }
    search.rings
}
