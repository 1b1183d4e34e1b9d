//! A hosted mirror whose trouble is reachable only from `refs/pull/*`:
//! the refusal names those refs and `--exclude-refs 'refs/pull/*'`, which
//! then converts exactly what the other refs reach.

use serde_json::Value;

use super::{assert_fsck_strict, hosted, mapped, pull_request, reachable, ref_names};
use crate::support::git::{git, git_with_input};
use crate::support::refusal::assert_refused_cleanly;
use crate::support::rehash::{rehash_convert, rehash_convert_ok, rehash_verify_ok};
use crate::support::repo_files::loose_object_path;
use crate::support::scratch::scratch_dir;

/// The hosted mirror with pull request 4 adding `secret.txt`, whose blob
/// is then deleted (it was loose); a dangling commit and a dangling tree
/// that name it too stay behind, unreachable. Returns SOURCE and the blob.
fn missing_blob_under_a_pull_ref(label: &str) -> (std::path::PathBuf, String) {
    let source = hosted(label);
    let head = pull_request(&source, 4, "main", "secret.txt");
    let blob = git(&source, &["rev-parse", &format!("{head}:secret.txt")]);
    let tree = git(&source, &["rev-parse", &format!("{head}^{{tree}}")]);
    git(&source, &["commit-tree", &tree, "-m", "dangling"]);
    let entry = format!("100644 blob {blob}\tcopy.txt\n");
    git_with_input(&source, &["mktree"], entry.as_bytes());
    std::fs::remove_file(loose_object_path(&source.join(".git"), &blob)).unwrap();
    (source, blob)
}

#[test]
fn a_blob_missing_under_a_pull_ref_is_refused_with_the_ref_named() {
    let (source, blob) = missing_blob_under_a_pull_ref("pull-missing");
    let dest = scratch_dir("pull-missing-dest").join("dest.git");

    let out = rehash_convert(&source, &dest, &["--quiet", "--json"]);
    let stderr = assert_refused_cleanly(
        &out,
        &dest,
        &[
            &blob,
            "reached from refs/pull/4/head",
            "--exclude-refs 'refs/pull/*'",
        ],
    );
    assert!(!stderr.contains("refs/heads/main"), "{stderr}");
    assert!(!dest.exists(), "a refused first run leaves nothing");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = &report["error"];
    assert_eq!(error["reaching_refs"]["count"], 1, "{error}");
    assert_eq!(error["reaching_refs"]["first"][0], "refs/pull/4/head");
    assert_eq!(error["options_past"], "--exclude-refs 'refs/pull/*'");
    let missing = error["missing_objects"].as_array().unwrap();
    // The pull request's tree and the dangling tree name it.
    assert_eq!(missing.len(), 2, "{missing:?}");
    for m in missing {
        assert_eq!(m["id"], blob.as_str());
        assert_eq!(m["reached_from"]["first"][0], "refs/pull/4/head");
    }
}

#[test]
fn excluding_the_pull_refs_converts_exactly_what_the_other_refs_reach() {
    let (source, _) = missing_blob_under_a_pull_ref("pull-excluded");
    let dest = scratch_dir("pull-excluded-dest").join("dest.git");

    let out = rehash_convert_ok(&source, &dest, &["--exclude-refs", "refs/pull/*", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = &report["result"];
    assert_eq!(result["refs_left_out"], 4, "{result}");
    assert_eq!(
        result["ref_selection"],
        serde_json::json!({"refs": [], "exclude_refs": ["refs/pull/*"]})
    );

    let kept: Vec<String> = ref_names(&source)
        .into_iter()
        .filter(|name| !name.starts_with("refs/pull/"))
        .collect();
    assert_eq!(ref_names(&dest), kept.iter().cloned().collect());
    assert_fsck_strict(&dest);
    let wanted = reachable(&source, &["--exclude=refs/pull/*", "--all"]);
    assert_eq!(mapped(&dest), wanted);
    assert!(result["objects_left_out"].as_u64().unwrap() > 0);
    let verified = rehash_verify_ok(&dest, &source);
    assert!(
        verified.contains("left out by the ref selection"),
        "{verified}"
    );
}

#[test]
fn pull_refs_that_are_delta_bases_of_kept_objects_are_left_out_exactly() {
    // Nothing missing: every pull request's objects are in the pack, many
    // of them the bases the kept trees and blobs are stored as deltas of.
    let source = hosted("pull-bases");
    let dest = scratch_dir("pull-bases-dest").join("dest.git");
    rehash_convert_ok(&source, &dest, &["--quiet", "--exclude-refs", "refs/pull"]);
    assert_fsck_strict(&dest);
    assert_eq!(
        mapped(&dest),
        reachable(&source, &["--exclude=refs/pull/*", "--all"])
    );
    let all = reachable(&source, &["--all"]);
    assert!(all.len() > mapped(&dest).len());
}

#[test]
fn an_accidental_gitlink_under_a_pull_ref_is_refused_with_the_ref_named() {
    let source = hosted("pull-gitlink");
    git(&source, &["checkout", "-q", "--detach", "main"]);
    let absent = "1234567890123456789012345678901234567890";
    git(
        &source,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{absent},vendored"),
        ],
    );
    git(&source, &["commit", "-q", "-m", "vendored by accident"]);
    git(&source, &["update-ref", "refs/pull/5/head", "HEAD"]);
    git(&source, &["checkout", "-q", "main"]);
    let dest = scratch_dir("pull-gitlink-dest").join("dest.git");

    let out = rehash_convert(&source, &dest, &["--quiet", "--json"]);
    assert_refused_cleanly(
        &out,
        &dest,
        &[
            "submodule path vendored",
            "reached from refs/pull/5/head",
            "--exclude-refs 'refs/pull/*'",
        ],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let gitlinks = report["error"]["unmapped_gitlinks"].as_array().unwrap();
    assert_eq!(gitlinks[0]["reached_from"]["count"], 1, "{gitlinks:?}");
    assert_eq!(
        report["error"]["options_past"],
        "--exclude-refs 'refs/pull/*'"
    );

    rehash_convert_ok(
        &source,
        &dest,
        &["--quiet", "--exclude-refs", "refs/pull/*"],
    );
    assert_fsck_strict(&dest);
    assert_eq!(
        mapped(&dest),
        reachable(&source, &["--exclude=refs/pull/*", "--all"])
    );
}
