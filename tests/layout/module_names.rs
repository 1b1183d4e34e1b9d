//! No two modules of src/ have names a letter apart (`delta` and
//! `deltas`, `write` and `writer`): a reader who meets one thinks of the
//! other. The same name in two places is fine when it is the same idea in
//! each (`plan`, `error`).

use std::collections::BTreeMap;

use crate::source_tree::SourceTree;

#[test]
fn no_two_module_names_are_a_letter_apart() {
    let tree = SourceTree::read();
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let files = tree.files.keys().map(|f| f.trim_end_matches(".rs"));
    let folders = tree.folders.iter().map(|f| f.trim_end_matches('/'));
    for path in files.chain(folders) {
        let name = path.rsplit('/').next().unwrap();
        if !["mod", "lib", "main"].contains(&name) {
            names
                .entry(name.to_string())
                .or_default()
                .push(format!("src/{path}"));
        }
    }
    let mut close = Vec::new();
    let all: Vec<_> = names.iter().collect();
    for (i, (a, a_paths)) in all.iter().enumerate() {
        for (b, b_paths) in &all[i + 1..] {
            if one_edit_apart(a, b) {
                close.push(format!("{} | {}", a_paths.join(", "), b_paths.join(", ")));
            }
        }
    }
    assert!(
        close.is_empty(),
        "names a letter apart:\n{}",
        close.join("\n")
    );
}

/// Whether one letter added, removed or changed makes `a` into `b`.
fn one_edit_apart(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let prefix = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    if short.len() == long.len() {
        prefix < short.len() && short[prefix + 1..] == long[prefix + 1..]
    } else {
        short[prefix..] == long[prefix + 1..]
    }
}

#[test]
fn a_letter_apart_is_one_added_removed_or_changed() {
    assert!(one_edit_apart("delta", "deltas"));
    assert!(one_edit_apart("write", "writer"));
    assert!(one_edit_apart("repo", "repos"));
    assert!(one_edit_apart("read", "reed"));
    assert!(!one_edit_apart("plan", "plan"));
    assert!(!one_edit_apart("plan", "scan"));
    assert!(!one_edit_apart("name_hash", "name_hashes"));
}
