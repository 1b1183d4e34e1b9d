//! The layout of the crate, checked against its map: docs/architecture.md
//! names every folder and file of src/ and only those that exist, and
//! src/'s files import one another as the map says they may (no rings, top
//! level modules only downward in the map's order of layers, no function
//! longer than a reader can follow, no two module names a letter apart).
//! These tests read files only; they build and run nothing.

mod architecture_doc;
mod function_length;
mod import_graph;
mod import_rules;
mod map_matches_tree;
mod module_names;
mod source_tree;
