//! The bitmap and commit-graph of a converted DEST against those `git-rehash
//! repack` writes from the pack alone: a conversion builds them from what
//! its map pass recorded of each object, and must give the same files.

use std::path::{Path, PathBuf};

use crate::support::file_tree::copy_dir;
use crate::support::rehash::{rehash_command, run_ok};
use crate::support::scratch::scratch_dir;

/// The `.bitmap` of DEST's one pack and its commit-graph.
fn serving_files(dest: &Path) -> (PathBuf, PathBuf) {
    let bitmap = std::fs::read_dir(dest.join("objects/pack"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "bitmap"))
        .unwrap_or_else(|| panic!("{} has no bitmap", dest.display()));
    (bitmap, dest.join("objects/info/commit-graph"))
}

/// Rebuilds both in a copy of `dest` with `repack`, reading the pack, and
/// compares them with `dest`'s.
pub fn assert_same_as_read_from_the_pack(dest: &Path, label: &str) {
    assert!(
        !dest.join("rehash/reach-records").exists(),
        "{label}: the map pass's records outlived the run"
    );
    let copy = scratch_dir(&format!("serving-{label}")).join("dest.git");
    copy_dir(dest, &copy);
    let read = |p: &Path| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let (bitmap, graph) = serving_files(&copy);
    let converted = (read(&bitmap), read(&graph));
    std::fs::remove_file(&bitmap).unwrap();
    std::fs::remove_file(&graph).unwrap();
    run_ok(rehash_command().arg("repack").arg(&copy));
    assert!(converted.0 == read(&bitmap), "{label}: the bitmaps differ");
    assert!(
        converted.1 == read(&graph),
        "{label}: the commit-graphs differ"
    );
}
