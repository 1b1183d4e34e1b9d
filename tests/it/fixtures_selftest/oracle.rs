//! The oracle maps every object exactly as git does, whichever engine and
//! mode, and refuses what git refuses.

use std::collections::{BTreeMap, BTreeSet};

use super::{header_of, raw_object};
use crate::support::file_tree::tree_checksums;
use crate::support::fixture::{FixtureOptions, default_repo, tricky_repo};
use crate::support::git::git_with_input;
use crate::support::oracle::{oracle_map, oracle_run, oracle_run_with, sub_oracle, tricky_oracle};
use crate::support::repo_files::all_objects;

#[test]
fn oracle_maps_every_object_of_the_default_fixture() {
    let repo = default_repo();
    let before = tree_checksums(&repo.root);
    let map = tricky_oracle(FixtureOptions::default());
    let objects = all_objects(&repo.repo_path);
    let mapped: BTreeMap<String, String> = map
        .iter()
        .map(|(k, (_, t))| (k.clone(), t.clone()))
        .collect();
    assert_eq!(
        mapped, objects,
        "oracle must map every object, with its type"
    );
    let targets: BTreeSet<&String> = map.values().map(|(s, _)| s).collect();
    assert_eq!(targets.len(), map.len(), "SHA-256 names are unique");
    assert!(
        map.values()
            .all(|(s, _)| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()))
    );
    // the built-in pairs
    assert_eq!(
        map["4b825dc642cb6eb9a060e54bf8d69288fbee4904"].0,
        "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
    );
    assert_eq!(
        map["e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"].0,
        "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"
    );
    // the oracle does not touch the source repository
    assert_eq!(tree_checksums(&repo.root), before);
}

#[test]
fn oracle_agrees_with_pairs_git_recorded_in_compat_mode() {
    let repo = default_repo();
    let recorded = repo.compat_era_pairs();
    // initial commit (5 blobs + 2 trees + commit), dual-signed commit (blob,
    // tree, commit), dual-signed tag
    assert!(recorded.len() >= 11, "{recorded:?}");
    let map = tricky_oracle(FixtureOptions::default());
    for (sha1, sha256) in &recorded {
        assert_eq!(map.get(sha1).map(|v| &v.0), Some(sha256), "pair of {sha1}");
    }
    let dual_commit = repo.rev("v0.1-dual^{commit}");
    let dual_tag = repo.rev("v0.1-dual");
    assert!(recorded.contains_key(&dual_commit) && recorded.contains_key(&dual_tag));
}

#[test]
fn oracle_engines_and_modes_agree() {
    let repo = default_repo();
    let full = tricky_oracle(FixtureOptions::default());
    let slow = oracle_run_with(&repo.repo_path, true, &[], &["--engine", "hash-object"]);
    assert_eq!(slow.status, 0, "{}", slow.stderr);
    assert_eq!(&slow.map, full);
    // reachable mode: a subset without the unreachable objects: the
    // reflog-only commit, the dangling blob (and intermediate trees that the
    // octopus strategy wrote)
    let reachable = oracle_map(&repo.repo_path, false, &[]);
    let missing: BTreeSet<&str> = full
        .keys()
        .filter(|k| !reachable.contains_key(*k))
        .map(String::as_str)
        .collect();
    let dangling = String::from_utf8(git_with_input(
        &repo.repo_path,
        &["hash-object", "--stdin"],
        b"dangling blob, referenced by nothing\n",
    ))
    .unwrap();
    let reflog_only = repo.rev("amended@{1}");
    assert!(missing.contains(dangling.trim()), "{missing:?}");
    assert!(missing.contains(reflog_only.as_str()), "{missing:?}");
    let with_reflog = oracle_run_with(&repo.repo_path, false, &[], &["--reflog"]);
    assert!(with_reflog.map.contains_key(&reflog_only));
    for (k, v) in &reachable {
        assert_eq!(full.get(k), Some(v));
    }
}

#[test]
fn oracle_refuses_gitlink_without_submodule_map() {
    let repo = tricky_repo(FixtureOptions::GITLINK);
    let run = oracle_run(&repo.repo_path, true, &[]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    let objects = all_objects(&repo.repo_path);
    assert_eq!(run.map.len() + run.refused.len(), objects.len());
    let gitlink_tree = repo.rev("main^{/add submodule gitlink}^{tree}");
    let (t, why) = &run.refused[&gitlink_tree];
    assert_eq!(t, "tree");
    assert!(
        why.contains("gitlink") && why.contains(&repo.sub_head),
        "{why}"
    );
    // everything above the gitlink is refused too, everything below maps
    assert!(run.refused.contains_key(&repo.rev("main")));
    assert!(run.refused.contains_key(&repo.rev("refs/heads/odd")));
    assert!(run.map.contains_key(&repo.rev("v2.0-signed")));
    assert!(run.map.contains_key(&repo.rev("main^{/octopus merge}")));

    // with the submodule's own map, everything converts
    let (sub_map, _) = sub_oracle(repo);
    assert!(sub_map.contains_key(&repo.sub_head));
    let full = tricky_oracle(FixtureOptions::GITLINK);
    assert_eq!(full.len(), objects.len());
    for (k, v) in &run.map {
        assert_eq!(
            full.get(k),
            Some(v),
            "same pair with and without the gitlink map"
        );
    }
}

#[test]
fn oracle_refuses_unknown_commit_header() {
    let repo = tricky_repo(FixtureOptions::UNKNOWN_HEADER);
    let commit = repo.rev("unknown-header");
    assert!(header_of(&raw_object(repo, "unknown-header")).contains("\nchange-id "));
    let run = oracle_run(&repo.repo_path, true, &[]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    let refused: Vec<&String> = run.refused.keys().collect();
    assert_eq!(refused, [&commit]);
    assert_eq!(run.map.len() + 1, all_objects(&repo.repo_path).len());
}
