//! `--reachable-only`: what no ref reaches is left out, and a refusal
//! about such objects says that no ref reaches them and names the option.

use serde_json::Value;

use super::{assert_fsck_strict, hosted, mapped, reachable, ref_names};
use crate::support::git::{git, git_with_input};
use crate::support::refusal::{USAGE, assert_clean_exit, assert_refused_cleanly};
use crate::support::rehash::{rehash_convert, rehash_convert_ok};
use crate::support::repo_files::loose_object_path;
use crate::support::scratch::scratch_dir;

/// The hosted mirror with unreachable objects: a dangling commit on
/// `main`'s tree, a dangling blob, and a dangling tree naming a blob that
/// is then deleted. Returns SOURCE and the deleted blob.
fn with_unreachable_objects(label: &str) -> (std::path::PathBuf, String) {
    let source = hosted(label);
    git(
        &source,
        &["commit-tree", "main^{tree}", "-p", "main", "-m", "dangling"],
    );
    git_with_input(
        &source,
        &["hash-object", "-w", "--stdin"],
        b"dangling blob\n",
    );
    let lost = String::from_utf8(git_with_input(
        &source,
        &["hash-object", "-w", "--stdin"],
        b"a blob only a dangling tree names\n",
    ))
    .unwrap()
    .trim()
    .to_string();
    let entry = format!("100644 blob {lost}\tlost.txt\n");
    git_with_input(&source, &["mktree"], entry.as_bytes());
    std::fs::remove_file(loose_object_path(&source.join(".git"), &lost)).unwrap();
    (source, lost)
}

#[test]
fn a_missing_object_no_ref_reaches_is_refused_as_unreachable() {
    let (source, lost) = with_unreachable_objects("reachable-refused");
    let dest = scratch_dir("reachable-refused-dest").join("dest.git");
    let out = rehash_convert(&source, &dest, &["--quiet", "--json"]);
    assert_refused_cleanly(
        &out,
        &dest,
        &[&lost, "unreachable (no ref reaches it)", "--reachable-only"],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["error"]["reaching_refs"]["count"], 0);
    assert_eq!(report["error"]["options_past"], "--reachable-only");
}

#[test]
fn reachable_only_converts_what_the_refs_reach() {
    let (source, _) = with_unreachable_objects("reachable-only");
    let dest = scratch_dir("reachable-only-dest").join("dest.git");
    rehash_convert_ok(&source, &dest, &["--quiet", "--reachable-only"]);
    assert_eq!(ref_names(&dest), ref_names(&source));
    assert_fsck_strict(&dest);
    assert_eq!(mapped(&dest), reachable(&source, &["--all"]));
}

#[test]
fn a_selection_that_leaves_out_heads_branch_or_every_ref_is_a_usage_error() {
    let source = hosted("selection-usage");
    let dest = scratch_dir("selection-usage-dest").join("dest.git");
    let out = rehash_convert(&source, &dest, &["--quiet", "--refs", "refs/tags/*"]);
    assert_clean_exit(
        &out,
        USAGE,
        &["HEAD names refs/heads/main", "--refs refs/heads/main"],
    );
    let out = rehash_convert(&source, &dest, &["--quiet", "--refs", "refs/nothing/*"]);
    assert_clean_exit(&out, USAGE, &["keeps none of SOURCE's", "git for-each-ref"]);
    // A pattern clap refuses, as it refuses any bad value.
    let out = rehash_convert(&source, &dest, &["--quiet", "--exclude-refs", "pull/*"]);
    assert_eq!(out.status.code(), Some(USAGE));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not a ref pattern") && stderr.contains("refs/pull/*"),
        "{stderr}"
    );
    assert!(!dest.exists());
}
