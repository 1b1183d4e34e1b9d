//! The options of `convert` in the SHA-256 -> SHA-1 direction: notes
//! re-keyed by SHA-1 names, git's compat map, a submodule converted first,
//! surrogate gitlinks with `--json` and reftable refs,
//! an incremental run and `repack`, and a later run whose SOURCE changed
//! its object format (`export-sha1` of a SHA-1 DEST, which has nothing to
//! do, is among the command line's mistakes, `tests/it/cli/mistakes.rs`).

use std::path::PathBuf;

use crate::support::file_tree::copy_dir;
use crate::support::git::git;
use crate::support::history::{commit_file, gitlink_in};
use crate::support::library::{HashKind, ObjectId, surrogate_for};
use crate::support::refusal::assert_clean_exit;
use crate::support::rehash::{
    rehash_command, rehash_convert, rehash_convert_ok, rehash_verify_ok, run_ok,
};
use crate::support::repo_files::{all_objects, pack_files};
use crate::support::reversed::reversed_fixture;
use crate::support::scratch::scratch_dir;
use crate::support::sha256_fixture::sha256_repo;

/// `--submodule-map` of the fixture's submodule, from its reverse conversion.
fn sub_map() -> String {
    let map = reversed_fixture().sub_dest.join("rehash/map.sqlite");
    map.to_str().expect("scratch paths are UTF-8").to_owned()
}

/// The SHA-256 fixture converted with `option` (and its submodule's map)
/// into a new DEST in a scratch directory named after `label`.
fn converted_with(label: &str, option: &str) -> PathBuf {
    let dest = scratch_dir(label).join("dest.git");
    let map = sub_map();
    let args = ["--quiet", option, "--submodule-map", map.as_str()];
    rehash_convert_ok(&sha256_repo().repo_path, &dest, &args);
    dest
}

#[test]
fn notes_are_rekeyed_by_sha1_names() {
    let repo = sha256_repo();
    let dest = converted_with("reverse-rekey", "--rekey-notes");
    let annotated = reversed_fixture().sha1_of(&repo.rev("main~2"));
    assert_eq!(
        git(&dest, &["notes", "show", &annotated]),
        "a note on a commit"
    );
    let message = git(&dest, &["log", "-1", "--format=%s", "refs/notes/commits"]);
    assert_eq!(message, "Notes re-keyed to SHA-1 names by git-rehash");
    rehash_verify_ok(&dest, &repo.repo_path);
}

#[test]
fn git_reads_the_compat_map_of_a_sha1_dest() {
    let repo = sha256_repo();
    let dest = converted_with("reverse-compat", "--git-compat-map");
    assert_eq!(
        git(&dest, &["config", "extensions.compatObjectFormat"]),
        "sha256"
    );
    for rev in ["main", "v1.0", "main^{tree}"] {
        let sha1 = git(&dest, &["rev-parse", rev]);
        assert_eq!(
            git(
                &dest,
                &["rev-parse", "--output-object-format=sha256", &sha1]
            ),
            repo.rev(rev),
            "{rev}"
        );
    }
}

#[test]
fn a_submodule_named_by_path_is_converted_first() {
    let repo = sha256_repo();
    let dest = scratch_dir("reverse-submodule").join("dest.git");
    let sub = format!("sub={}", repo.sub_path.display());
    rehash_convert_ok(&repo.repo_path, &dest, &["--quiet", "--submodule", &sub]);
    let sub_head = git(&dest.join("modules/sub"), &["rev-parse", "HEAD"]);
    assert_eq!(
        git(&dest, &["ls-tree", "main", "sub"]),
        format!("160000 commit {sub_head}\tsub")
    );
    assert_eq!(
        git(
            &dest.join("modules/sub"),
            &["rev-parse", "--show-object-format"]
        ),
        "sha1"
    );
}

#[test]
fn an_incremental_run_adds_a_pack_that_repack_folds() {
    let repo = sha256_repo();
    let source = scratch_dir("reverse-incremental").join("source");
    copy_dir(&repo.repo_path, &source);
    let dest = scratch_dir("reverse-incremental-dest").join("dest.git");
    let map = sub_map();
    let opts = ["--quiet", "--submodule-map", map.as_str()];
    rehash_convert_ok(&source, &dest, &opts);
    commit_file(
        &source,
        "later.txt",
        "made after the conversion\n",
        "a later commit",
    );
    rehash_convert_ok(&source, &dest, &opts);
    assert_eq!(pack_files(&dest).len(), 2);
    assert_eq!(
        git(&dest, &["rev-parse", "main"]),
        git(
            &source,
            &["rev-parse", "--output-object-format=sha1", "main"]
        )
    );
    run_ok(rehash_command().arg("repack").arg(&dest).arg("--quiet"));
    assert_eq!(pack_files(&dest).len(), 1);
    let count = git(
        &dest,
        &["rev-list", "--use-bitmap-index", "--count", "--all"],
    );
    assert_eq!(count, git(&source, &["rev-list", "--count", "--all"]));
    rehash_verify_ok(&dest, &source);
}

#[test]
fn a_later_run_refuses_a_source_whose_object_format_changed() {
    let root = scratch_dir("reverse-format-change");
    let (source, dest) = (root.join("source"), root.join("dest.git"));
    std::fs::create_dir_all(&source).unwrap();
    git(&source, &["init", "-q", "--object-format=sha256"]);
    commit_file(&source, "f", "one\n", "one");
    rehash_convert_ok(&source, &dest, &["--quiet"]);
    // The same path, now a SHA-1 repository.
    std::fs::remove_dir_all(&source).unwrap();
    std::fs::create_dir_all(&source).unwrap();
    git(&source, &["init", "-q", "--object-format=sha1"]);
    commit_file(&source, "f", "one\n", "one");
    let out = rehash_convert(&source, &dest, &["--quiet"]);
    assert_clean_exit(
        &out,
        2,
        &["was converted from sha256, and SOURCE now uses sha1"],
    );
}

/// Without the submodule's map, `--unmapped-gitlinks=placeholder` gives
/// the gitlink a SHA-1 surrogate of its SHA-256 target, recorded; with
/// `--json` and `--ref-format=reftable` as forward: one JSON report, the
/// refs in a reftable stack git reads.
#[test]
fn placeholder_json_and_reftable_work_as_forward() {
    let repo = sha256_repo();
    let dest = scratch_dir("reverse-placeholder").join("dest.git");
    let out = rehash_convert_ok(
        &repo.repo_path,
        &dest,
        &[
            "--quiet",
            "--json",
            "--ref-format=reftable",
            "--unmapped-gitlinks=placeholder",
        ],
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(report["status"], "converted", "{report}");
    assert_eq!(
        report["result"]["objects_listed"],
        all_objects(&repo.repo_path).len()
    );

    let target = ObjectId::parse_hex(HashKind::Sha256, &repo.rev("main:sub")).unwrap();
    let surrogate = surrogate_for(&target).to_hex();
    assert_eq!(gitlink_in(&dest, "refs/heads/main", "sub"), surrogate);
    let recorded = std::fs::read_to_string(dest.join("rehash/gitlinks.txt")).unwrap();
    assert!(recorded.contains(&surrogate), "{recorded}");

    assert_eq!(git(&dest, &["rev-parse", "--show-ref-format"]), "reftable");
    // Every ref (a replace ref's name is translated too).
    let count = |repo: &std::path::Path| git(repo, &["for-each-ref"]).lines().count();
    assert_eq!(count(&dest), count(&repo.repo_path));
    git(&dest, &["fsck", "--connectivity-only"]);
    let verified = rehash_verify_ok(&dest, &repo.repo_path);
    assert!(
        verified.contains("1 gitlink(s) carry SURROGATE names"),
        "{verified}"
    );
}
