//! Fitting into the git world (issue 8), checked with real git:
//! `--git-compat-map` (git itself answers SHA-1 <-> SHA-256 questions in
//! DEST), gitlinks through `--submodule-map` (a map database or a text
//! file, the result equal to git's own names), and the lossy
//! `--unmapped-gitlinks=placeholder`.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::*;
use git_rehash::hash::{HashKind, ObjectId};

const GITLINK: FixtureOptions = FixtureOptions {
    gitlink: true,
    unknown_header: false,
};

/// `sub` of the gitlink fixture, converted once.
fn converted_sub() -> &'static Path {
    static DONE: OnceLock<PathBuf> = OnceLock::new();
    DONE.get_or_init(|| {
        let dest = scratch_dir("interop-sub").join("sub.git");
        rehash_convert_ok(&tricky_repo(GITLINK).sub_path, &dest, &["--quiet"]);
        dest
    })
}

/// The SHA-256 name of a gitlink entry `path` in `treeish` of `repo`.
fn gitlink_in(repo: &Path, treeish: &str, path: &str) -> String {
    let line = git(repo, &["ls-tree", treeish, "--", path]);
    assert!(line.starts_with("160000 commit "), "not a gitlink: {line}");
    line["160000 commit ".len()..]
        .split('\t')
        .next()
        .unwrap()
        .to_owned()
}

#[test]
fn git_compat_map_lets_git_answer_for_every_object() {
    let repo = default_repo();
    let dest = scratch_dir("interop-compat").join("dest.git");
    let out = rehash_convert_ok(&repo.repo_path, &dest, &["--git-compat-map"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("loose-object-idx"),
        "summary does not mention the compat map"
    );
    assert_eq!(
        git(&dest, &["config", "extensions.compatObjectFormat"]),
        "sha1"
    );
    let map = rehash_export_map(&dest);
    // Every object, commits included, in one rev-parse call each way.
    let sha256s: Vec<&str> = map.values().map(|(s, _)| s.as_str()).collect();
    let mut args = vec!["rev-parse", "--output-object-format=sha1"];
    args.extend(&sha256s);
    let answered: Vec<String> = git(&dest, &args).lines().map(str::to_owned).collect();
    let expected: Vec<&String> = map.keys().collect();
    assert_eq!(answered.len(), expected.len());
    for (got, want) in answered.iter().zip(expected) {
        assert_eq!(got, want, "git's SHA-1 for a SHA-256 name");
    }
    // And git takes SHA-1 names as input (git 2.47: `rev-parse` only with
    // `--output-object-format=sha256`; `cat-file` directly).
    for (sha1, (sha256, kind)) in &map {
        if kind == "commit" {
            assert_eq!(
                &git(&dest, &["rev-parse", "--output-object-format=sha256", sha1]),
                sha256
            );
            assert_eq!(git(&dest, &["cat-file", "-t", sha1]), "commit");
        }
    }
    // git log works as usual, and the conversion still verifies.
    git(&dest, &["log", "--oneline", "--all"]);
    rehash_verify_ok(&dest, &repo.repo_path);
}

#[test]
fn submodule_map_database_names_gitlinks_as_git_does() {
    let repo = tricky_repo(GITLINK);
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
    let oracle = tricky_oracle(GITLINK);
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
    let repo = tricky_repo(GITLINK);
    let (_, sub_map_txt) = sub_oracle(repo);
    let dest = scratch_dir("interop-submap-txt").join("dest.git");
    rehash_convert_ok(
        &repo.repo_path,
        &dest,
        &["--quiet", "--submodule-map", sub_map_txt.to_str().unwrap()],
    );
    let oracle = tricky_oracle(GITLINK);
    for (sha1, (sha256, _)) in rehash_export_map(&dest) {
        assert_eq!(sha256, oracle[&sha1].0, "object {sha1}");
    }
}

#[test]
fn refusal_names_the_options_that_fix_it() {
    let repo = tricky_repo(GITLINK);
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
    let repo = tricky_repo(GITLINK);
    let surrogate = git_rehash::convert::surrogate_for(
        &ObjectId::parse_hex(HashKind::Sha1, &repo.sub_head).unwrap(),
    )
    .to_hex();
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
        let meta = git_rehash::idmap::IdMap::open_read_only(&dest.join("rehash/map.sqlite"))
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
