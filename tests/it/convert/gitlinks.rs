//! Gitlinks (submodule commits pinned in trees): refused without the
//! submodule's map, named as git names them with `--submodule-map` (a map
//! database or a text file), or given recorded, deterministic surrogates
//! with the lossy `--unmapped-gitlinks=placeholder`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::support::file_tree::tree_checksums;
use crate::support::fixture::{FixtureOptions, tricky_repo};
use crate::support::git::{git, git_with_input};
use crate::support::history::gitlink_in;
use crate::support::library::{HashKind, IdMap, ObjectId, surrogate_for};
use crate::support::oracle::{sub_oracle, tricky_oracle};
use crate::support::raw_object::{fake_name, hex};
use crate::support::refusal::assert_refused_cleanly;
use crate::support::rehash::{
    rehash_convert, rehash_convert_ok, rehash_export_map, rehash_verify_ok,
};
use crate::support::scratch::scratch_dir;
use crate::support::watched_source::small_repo;

/// `sub` of the gitlink fixture, converted once.
fn converted_sub() -> &'static Path {
    static DONE: OnceLock<PathBuf> = OnceLock::new();
    DONE.get_or_init(|| {
        let dest = scratch_dir("interop-sub").join("sub.git");
        rehash_convert_ok(
            &tricky_repo(FixtureOptions::GITLINK).sub_path,
            &dest,
            &["--quiet"],
        );
        dest
    })
}

#[test]
fn unmapped_gitlink_is_refused_naming_path_and_commit() {
    let repo = tricky_repo(FixtureOptions::GITLINK);
    let dest = scratch_dir("convert-gitlink").join("dest.git");
    let before = tree_checksums(&repo.root);
    let out = rehash_convert(&repo.repo_path, &dest, &[]);
    assert_refused_cleanly(
        &out,
        &dest,
        &["submodule path sub:", &repo.sub_head, "pinned by commit"],
    );
    // The example commit really pins the submodule at that path.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let commit = stderr
        .split("pinned by commit ")
        .nth(1)
        .and_then(|rest| rest.get(..40))
        .expect("a commit id follows");
    let entry = git(&repo.repo_path, &["ls-tree", commit, "sub"]);
    assert!(entry.starts_with("160000 commit "), "{entry}");
    assert!(
        !dest.exists(),
        "nothing is written when refusing before the start"
    );
    assert_eq!(before, tree_checksums(&repo.root));
}

#[test]
fn submodule_map_database_names_gitlinks_as_git_does() {
    let repo = tricky_repo(FixtureOptions::GITLINK);
    let sub_map = converted_sub().join("rehash/map.sqlite");
    let dest = scratch_dir("interop-submap-db").join("dest.git");
    let out = rehash_convert_ok(
        &repo.repo_path,
        &dest,
        &["--submodule-map", sub_map.to_str().unwrap()],
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 submodule commit(s) named"));
    // Every object's name equals git's own, computed with the submodule's pairs.
    let ours = rehash_export_map(&dest);
    let oracle = tricky_oracle(FixtureOptions::GITLINK);
    for (sha1, (sha256, kind)) in &ours {
        let (want, want_kind) = oracle
            .get(sha1)
            .unwrap_or_else(|| panic!("{sha1} missing from the oracle"));
        assert_eq!((sha256, kind), (want, want_kind), "object {sha1}");
    }
    let sub_sha256 = rehash_export_map(converted_sub())[&repo.sub_head].0.clone();
    assert_eq!(gitlink_in(&dest, "refs/heads/main", "sub"), sub_sha256);
    let recorded = std::fs::read_to_string(dest.join("rehash/gitlinks.txt")).unwrap();
    assert!(recorded.contains(&format!("{} {sub_sha256} submodule-map", repo.sub_head)));
    rehash_verify_ok(&dest, &repo.repo_path);
}

#[test]
fn submodule_map_text_file_works_too() {
    let repo = tricky_repo(FixtureOptions::GITLINK);
    let (_, sub_map_txt) = sub_oracle(repo);
    let dest = scratch_dir("interop-submap-txt").join("dest.git");
    rehash_convert_ok(
        &repo.repo_path,
        &dest,
        &["--quiet", "--submodule-map", sub_map_txt.to_str().unwrap()],
    );
    let oracle = tricky_oracle(FixtureOptions::GITLINK);
    for (sha1, (sha256, _)) in rehash_export_map(&dest) {
        assert_eq!(sha256, oracle[&sha1].0, "object {sha1}");
    }
}

#[test]
fn refusal_names_the_options_that_fix_it() {
    let repo = tricky_repo(FixtureOptions::GITLINK);
    let dest = scratch_dir("interop-refuse").join("dest.git");
    let out = rehash_convert(&repo.repo_path, &dest, &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    for needle in [
        "submodule path sub",
        &repo.sub_head,
        "--submodule-map",
        "--unmapped-gitlinks=placeholder",
    ] {
        assert!(err.contains(needle), "refusal lacks {needle}:\n{err}");
    }
    assert!(!dest.join("config").exists());
}

#[test]
fn placeholder_gives_recorded_deterministic_surrogates() {
    let repo = tricky_repo(FixtureOptions::GITLINK);
    let surrogate =
        surrogate_for(&ObjectId::parse_hex(HashKind::Sha1, &repo.sub_head).unwrap()).to_hex();
    let mut trees = Vec::new();
    for n in 0..2 {
        let dest = scratch_dir("interop-placeholder").join(format!("dest{n}.git"));
        let out = rehash_convert_ok(&repo.repo_path, &dest, &["--unmapped-gitlinks=placeholder"]);
        assert!(String::from_utf8_lossy(&out.stderr).contains("SURROGATE"));
        assert_eq!(gitlink_in(&dest, "refs/heads/main", "sub"), surrogate);
        let recorded = std::fs::read_to_string(dest.join("rehash/gitlinks.txt")).unwrap();
        assert!(
            recorded.contains(&format!("{} {surrogate} surrogate", repo.sub_head)),
            "{recorded}"
        );
        let meta = IdMap::open_read_only(&dest.join("rehash/map.sqlite"))
            .unwrap()
            .meta("gitlink_surrogates")
            .unwrap();
        assert_eq!(meta.as_deref(), Some("1"));
        git(&dest, &["fsck", "--connectivity-only"]);
        assert!(
            rehash_verify_ok(&dest, &repo.repo_path).contains("1 gitlink(s) carry SURROGATE names")
        );
        trees.push(git(&dest, &["rev-parse", "refs/heads/main^{tree}"]));
    }
    assert_eq!(trees[0], trees[1], "surrogates are deterministic");
}

/// The commit named after "pinned by commit " on the line of `path`.
fn pinned_by(stderr: &str, path: &str) -> String {
    let line = stderr
        .lines()
        .find(|l| l.contains(&format!("submodule path {path}:")))
        .unwrap_or_else(|| panic!("no line for {path}:\n{stderr}"));
    let rest = line.split("pinned by commit ").nth(1).expect("a commit");
    rest[..40].to_string()
}

#[test]
fn refusal_names_nested_paths_their_commits_and_unreachable_trees() {
    let source = small_repo("gitlink-nested");
    let repo = &source.path;
    let [a, b, c, d] = [1, 2, 3, 4].map(|n| hex(&fake_name(n)));
    for (target, path, message) in [
        (&a, "libs/deep/mod", "pin mod"),
        (&c, "top", "pin top"),
        (&b, "libs/deep/mod", "move mod"),
    ] {
        let info = format!("160000,{target},{path}");
        git(repo, &["update-index", "--add", "--cacheinfo", &info]);
        git(repo, &["commit", "-q", "-m", message]);
    }
    // A tree with a gitlink that no commit reaches.
    let entry = format!("160000 commit {d}\tloose\n");
    let loose = String::from_utf8(git_with_input(repo, &["mktree"], entry.as_bytes())).unwrap();
    let loose = loose.trim();
    let dest = scratch_dir("gitlink-nested").join("dest.git");
    let out = rehash_convert(repo, &dest, &["--quiet"]);
    let unreachable =
        format!("submodule path loose (in tree {loose} not reachable from any commit)");
    let stderr = assert_refused_cleanly(
        &out,
        &dest,
        &[
            "submodule path libs/deep/mod: 2 distinct commit(s)",
            "submodule path top: 1 distinct commit(s)",
            &unreachable,
            &a,
            &c,
            &d,
        ],
    );
    // Each example commit pins a listed commit at that very path.
    let nested = gitlink_in(repo, &pinned_by(&stderr, "libs/deep/mod"), "libs/deep/mod");
    assert!(nested == a || nested == b, "{nested}");
    assert_eq!(gitlink_in(repo, &pinned_by(&stderr, "top"), "top"), c);
}
