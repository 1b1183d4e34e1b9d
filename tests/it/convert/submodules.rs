//! `--recurse-submodules` and `--submodule PATH=REPO`, checked with real
//! git: a superproject with two levels of submodules (super -> mid -> leaf,
//! `mid` added under another name), commits that move the gitlinks,
//! converted in one command; then a clone of the SHA-256 superproject whose
//! `git submodule update --init --recursive` checks out the converted
//! submodules at the SHA-256 names their maps give for the pinned SHA-1s.

use std::path::{Path, PathBuf};

use crate::support::git::git;
use crate::support::history::{commit_file, gitlink_in};
use crate::support::rehash::{
    rehash_convert, rehash_convert_ok, rehash_export_map, rehash_verify_ok,
};
use crate::support::scratch::scratch_dir;

const FILE_ALLOW: &[&str] = &["-c", "protocol.file.allow=always"];

fn git_sub(dir: &Path, args: &[&str]) -> String {
    let mut all = FILE_ALLOW.to_vec();
    all.extend(args);
    git(dir, &all)
}

/// The fixture: `root/{leaf,mid,super}`; `super/.git/modules/mid-name`
/// and `super/.git/modules/mid-name/modules/leaf` hold every pinned commit.
struct Fixture {
    root: PathBuf,
    superproject: PathBuf,
}

impl Fixture {
    fn build(label: &str) -> Fixture {
        let root = std::fs::canonicalize(scratch_dir(label)).unwrap();
        for name in ["leaf", "mid", "super"] {
            git(&root, &["init", "-q", "-b", "main", name]);
        }
        let (leaf, mid, sup) = (root.join("leaf"), root.join("mid"), root.join("super"));
        commit_file(&leaf, "a.txt", "leaf 1\n", "leaf 1");
        commit_file(&mid, "m.txt", "mid 1\n", "mid 1");
        git_sub(&mid, &["submodule", "add", "-q", "../leaf", "leaf"]);
        git(&mid, &["commit", "-q", "-m", "mid: add leaf"]);
        commit_file(&sup, "s.txt", "super 1\n", "super 1");
        git_sub(
            &sup,
            &[
                "submodule",
                "add",
                "-q",
                "--name",
                "mid-name",
                "../mid",
                "mid",
            ],
        );
        git(&sup, &["commit", "-q", "-m", "super: add mid"]);
        git_sub(
            &sup,
            &["submodule", "update", "-q", "--init", "--recursive"],
        );
        let fixture = Fixture {
            root,
            superproject: sup,
        };
        for round in 2..=3 {
            fixture.move_gitlinks(round);
        }
        fixture
    }

    /// A leaf commit, pinned by a new mid commit, pinned by a new super commit.
    fn move_gitlinks(&self, round: u32) {
        let sup = &self.superproject;
        let (mid, leaf) = (sup.join("mid"), sup.join("mid/leaf"));
        for dir in [&mid, &leaf] {
            git(dir, &["checkout", "-q", "-B", "main"]);
        }
        commit_file(&leaf, "a.txt", &format!("leaf {round}\n"), "leaf");
        git(&mid, &["add", "leaf"]);
        git(&mid, &["commit", "-q", "-m", &format!("mid: leaf {round}")]);
        git(sup, &["add", "mid"]);
        git(sup, &["commit", "-q", "-m", &format!("super: mid {round}")]);
    }

    fn rev(&self, sub: &str, rev: &str) -> String {
        git(&self.superproject.join(sub), &["rev-parse", rev])
    }
}

/// sha256 of `sha1` in the map of the conversion at `dest`.
fn mapped(dest: &Path, sha1: &str) -> String {
    rehash_export_map(dest)
        .get(sha1)
        .unwrap_or_else(|| panic!("{sha1} not in the map of {}", dest.display()))
        .0
        .clone()
}

fn fsck_strict(repo: &Path) {
    git(repo, &["fsck", "--strict", "--no-progress"]);
}

/// Clones `dest`, points the submodule URLs at the converted submodules and
/// checks out everything; returns the work tree.
fn clone_and_update(dest: &Path, into: &Path) -> PathBuf {
    let work = into.join("work");
    git(
        into,
        &[
            "clone",
            "-q",
            dest.to_str().unwrap(),
            work.to_str().unwrap(),
        ],
    );
    assert_eq!(git(&work, &["rev-parse", "--show-object-format"]), "sha256");
    let mid_repo = dest.join("modules/mid-name");
    git(&work, &["submodule", "init"]);
    git(
        &work,
        &[
            "config",
            "submodule.mid-name.url",
            mid_repo.to_str().unwrap(),
        ],
    );
    git_sub(&work, &["submodule", "update", "-q"]);
    let leaf_repo = mid_repo.join("modules/leaf");
    git(&work.join("mid"), &["submodule", "init"]);
    git(
        &work.join("mid"),
        &["config", "submodule.leaf.url", leaf_repo.to_str().unwrap()],
    );
    git_sub(
        &work,
        &["submodule", "update", "-q", "--init", "--recursive"],
    );
    work
}

#[test]
fn recurse_submodules_converts_two_levels_and_git_checks_them_out() {
    let fx = Fixture::build("sub-recurse");
    let dest = fx.root.join("super-sha256.git");
    let out = rehash_convert_ok(
        &fx.superproject.join(".git"),
        &dest,
        &["--recurse-submodules"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("submodule mid-name/leaf: converted"),
        "{stderr}"
    );
    assert!(stderr.contains("submodule mid-name: converted"), "{stderr}");
    let mid_dest = dest.join("modules/mid-name");
    let leaf_dest = mid_dest.join("modules/leaf");
    for repo in [&dest, &mid_dest, &leaf_dest] {
        assert_eq!(git(repo, &["rev-parse", "--show-object-format"]), "sha256");
        fsck_strict(repo);
    }
    // Each gitlink in history is the submodule map's name of the pinned commit.
    let super_log = git(&fx.superproject, &["rev-list", "HEAD"]);
    let super_map = rehash_export_map(&dest);
    for sha1 in super_log.lines() {
        let sha256 = &super_map[sha1].0;
        if git(&fx.superproject, &["ls-tree", sha1, "mid"]).is_empty() {
            continue;
        }
        let pinned = gitlink_in(&fx.superproject, sha1, "mid");
        assert_eq!(gitlink_in(&dest, sha256, "mid"), mapped(&mid_dest, &pinned));
    }

    let work = clone_and_update(&dest, &fx.root);
    let leaf_pinned = fx.rev("mid/leaf", "HEAD");
    let mid_pinned = fx.rev("mid", "HEAD");
    assert_eq!(
        std::fs::read_to_string(work.join("mid/leaf/a.txt")).unwrap(),
        "leaf 3\n"
    );
    assert_eq!(
        git(&work.join("mid"), &["rev-parse", "HEAD"]),
        mapped(&mid_dest, &mid_pinned)
    );
    assert_eq!(
        git(&work.join("mid/leaf"), &["rev-parse", "HEAD"]),
        mapped(&leaf_dest, &leaf_pinned)
    );
    assert_eq!(
        git(
            &work.join("mid/leaf"),
            &["rev-parse", "--show-object-format"]
        ),
        "sha256"
    );

    // An incremental re-run converts the new commits of every level.
    fx.move_gitlinks(4);
    let out = rehash_convert_ok(
        &fx.superproject.join(".git"),
        &dest,
        &["--recurse-submodules"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("submodule mid-name: updated"), "{stderr}");
    assert!(
        stderr.starts_with("updated:") || stderr.contains("\nupdated:"),
        "{stderr}"
    );
    let head = mapped(&dest, &fx.rev(".", "HEAD"));
    assert_eq!(git(&dest, &["rev-parse", "refs/heads/main"]), head);
    assert_eq!(
        gitlink_in(&dest, &head, "mid"),
        mapped(&mid_dest, &fx.rev("mid", "HEAD"))
    );
    fsck_strict(&dest);
    rehash_verify_ok(&dest, &fx.superproject.join(".git"));
}

#[test]
fn explicit_submodule_repository_is_converted_under_its_name() {
    let fx = Fixture::build("sub-explicit");
    // A bare clone has no modules/: the submodule comes from the option.
    let bare = fx.root.join("super-bare.git");
    git(
        &fx.root,
        &[
            "clone",
            "-q",
            "--bare",
            fx.superproject.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    let dest = fx.root.join("explicit-sha256.git");
    let refused = rehash_convert(&bare, &dest, &[]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("submodule path mid"));

    let arg = format!("mid={}", fx.superproject.join("mid").display());
    rehash_convert_ok(&bare, &dest, &["--quiet", "--submodule", &arg]);
    // The name comes from .gitmodules (`--name mid-name`), not the path.
    let mid_dest = dest.join("modules/mid-name");
    assert!(mid_dest.join("modules/leaf/config").is_file());
    assert_eq!(
        gitlink_in(&dest, "HEAD", "mid"),
        mapped(&mid_dest, &fx.rev("mid", "HEAD"))
    );
    fsck_strict(&dest);
    let work = clone_and_update(&dest, &fx.root);
    assert_eq!(
        std::fs::read_to_string(work.join("mid/leaf/a.txt")).unwrap(),
        "leaf 3\n"
    );
}

#[test]
fn force_with_recursion_starts_over_and_keeps_the_submodules() {
    let fx = Fixture::build("sub-force");
    let dest = fx.root.join("forced.git");
    let args = ["--quiet", "--recurse-submodules"];
    rehash_convert_ok(&fx.superproject, &dest, &args);
    let head = git(&dest, &["rev-parse", "HEAD"]);
    rehash_convert_ok(
        &fx.superproject,
        &dest,
        &["--quiet", "--recurse-submodules", "--force"],
    );
    assert_eq!(git(&dest, &["rev-parse", "HEAD"]), head);
    fsck_strict(&dest.join("modules/mid-name"));
}

#[test]
fn refused_superproject_keeps_the_converted_submodules() {
    let fx = Fixture::build("sub-refused");
    // Pin a mid commit that no repository has.
    let sup = &fx.superproject;
    let bogus = "1234567890".repeat(4);
    git(
        sup,
        &[
            "update-index",
            "--cacheinfo",
            &format!("160000,{bogus},mid"),
        ],
    );
    git(sup, &["commit", "-q", "-m", "pin a commit nobody has"]);
    let dest = fx.root.join("refused.git");
    let out = rehash_convert(sup, &dest, &["--recurse-submodules"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("submodule path mid") && stderr.contains(&bogus),
        "{stderr}"
    );
    // DEST is not a repository, but the submodules' conversions are kept.
    assert!(!dest.join("config").exists());
    let mid_dest = dest.join("modules/mid-name");
    assert_eq!(
        git(&mid_dest, &["rev-parse", "--show-object-format"]),
        "sha256"
    );
    fsck_strict(&mid_dest);
}
