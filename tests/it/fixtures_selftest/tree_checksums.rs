//! The "SOURCE unchanged" fingerprint notices every kind of change.

use std::fs;

use crate::support::file_tree::tree_checksums;

#[test]
fn tree_checksums_notice_changes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("sub")).unwrap();
    fs::write(d.join("sub/f"), b"x").unwrap();
    let before = tree_checksums(d);
    assert_eq!(before.len(), 2);
    assert_eq!(tree_checksums(d), before);
    fs::write(d.join("sub/f"), b"y").unwrap();
    assert_ne!(tree_checksums(d), before);
    fs::write(d.join("sub/f"), b"x").unwrap();
    assert_eq!(tree_checksums(d), before);
    fs::create_dir(d.join("empty")).unwrap();
    assert_ne!(tree_checksums(d), before);
}
