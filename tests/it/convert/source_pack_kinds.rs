//! SOURCE's objects are read from every pack git reads, whatever its
//! name or role: a cruft pack of unreachable objects, a pack a `.keep`
//! protects, a pack renamed away from `pack-<hash>`, beside the files git
//! keeps next to packs (bitmaps, a multi-pack-index with its bitmap, a
//! commit-graph chain, `objects/info/packs`) and an `.idx` whose `.pack`
//! is gone, which git ignores.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::file_tree::tree_checksums;
use crate::support::git::{git, git_output};
use crate::support::history::commit_file;
use crate::support::oracle::oracle_map;
use crate::support::rehash::{rehash_convert_ok, rehash_export_map, rehash_verify_ok};
use crate::support::repo_files::{all_objects, dir_names, loose_objects, pack_entries, pack_files};
use crate::support::scratch::scratch_dir;

/// The packs of the repository [`every_kind_of_pack`] builds.
struct PackKinds {
    cruft: PathBuf,
    kept: PathBuf,
    renamed: PathBuf,
    /// The commit of a deleted branch: only the cruft pack holds it.
    unreachable_commit: String,
}

#[test]
fn objects_of_cruft_kept_and_renamed_packs_are_all_converted() {
    let dir = scratch_dir("source-pack-kinds");
    let repo = dir.join("source");
    let packs = every_kind_of_pack(&repo);
    let before = tree_checksums(&repo);

    let dest = dir.join("dest.git");
    rehash_convert_ok(&repo, &dest, &["--quiet"]);
    assert_eq!(before, tree_checksums(&repo), "SOURCE was modified");

    let map = rehash_export_map(&dest);
    let stored = all_objects(&repo);
    assert_eq!(map.len(), stored.len(), "one row per stored object");
    assert_eq!(map, oracle_map(&repo, true, &[]), "map differs from git's");
    for pack in [&packs.cruft, &packs.kept, &packs.renamed] {
        for entry in pack_entries(pack, "sha1") {
            assert!(map.contains_key(&entry.id), "{} of {pack:?}", entry.id);
        }
    }
    assert!(map.contains_key(&packs.unreachable_commit));

    let fsck = git_output(&dest, &["fsck", "--strict"]);
    assert!(
        fsck.status.success(),
        "fsck --strict in DEST: {}",
        String::from_utf8_lossy(&fsck.stderr)
    );
    rehash_verify_ok(&dest, &repo);
    assert_eq!(before, tree_checksums(&repo), "SOURCE was modified");
}

/// A repository in `repo` whose objects lie in a cruft pack, a pack with
/// a bitmap, a `.keep` pack, a pack named `custom` and loose objects,
/// with a multi-pack-index and its bitmap, a commit-graph chain of two
/// layers, `objects/info/packs` and an `.idx` without its `.pack`.
fn every_kind_of_pack(repo: &Path) -> PackKinds {
    fs::create_dir_all(repo).unwrap();
    git(repo, &["init", "-q", "-b", "main"]);
    let git_dir = repo.join(".git");
    let pack_dir = git_dir.join("objects/pack");
    for n in 0..3 {
        commit_file(repo, &format!("f{n}"), &format!("{n}\n"), &format!("c{n}"));
    }
    git(repo, &["checkout", "-q", "-b", "dropped"]);
    let unreachable_commit = commit_file(repo, "gone", "gone\n", "dropped");
    git(repo, &["checkout", "-q", "main"]);
    git(repo, &["branch", "-q", "-D", "dropped"]);
    git(repo, &["reflog", "expire", "--expire=now", "--all"]);
    // The reachable objects in one pack with its bitmap, the rest in a
    // cruft pack (its `.mtimes` dates them).
    git(repo, &["repack", "-q", "-a", "-d", "-b", "--cruft"]);
    let cruft = only_pack_with(&git_dir, "mtimes");

    commit_file(repo, "kept", "kept\n", "kept");
    git(repo, &["tag", "-a", "-m", "a tag", "v1"]);
    let kept = pack_loose_objects(repo, &git_dir);
    fs::write(kept.with_extension("keep"), "").unwrap();

    commit_file(repo, "renamed", "renamed\n", "renamed");
    let packed = pack_loose_objects(repo, &git_dir);
    let renamed = pack_dir.join("custom.pack");
    for ext in ["pack", "idx", "rev"] {
        fs::rename(packed.with_extension(ext), renamed.with_extension(ext)).unwrap();
    }

    git(repo, &["multi-pack-index", "write", "--bitmap"]);
    git(repo, &["commit-graph", "write", "--reachable", "--split"]);
    commit_file(repo, "graph", "graph\n", "second commit-graph layer");
    git(
        repo,
        &["commit-graph", "write", "--reachable", "--split=no-merge"],
    );
    git(repo, &["update-server-info"]);
    fs::copy(renamed.with_extension("idx"), pack_dir.join("orphan.idx")).unwrap();
    commit_file(repo, "loose", "loose\n", "loose");

    assert_layout(&git_dir);
    PackKinds {
        cruft,
        kept,
        renamed,
        unreachable_commit,
    }
}

/// The one pack of `git_dir` that has a file with extension `ext` beside it.
fn only_pack_with(git_dir: &Path, ext: &str) -> PathBuf {
    let with: Vec<PathBuf> = pack_files(git_dir)
        .into_iter()
        .filter(|p| p.with_extension(ext).exists())
        .collect();
    assert_eq!(with.len(), 1, "packs with .{ext}: {with:?}");
    with[0].clone()
}

/// `git repack -d` (the loose objects into one more pack); returns that pack.
fn pack_loose_objects(repo: &Path, git_dir: &Path) -> PathBuf {
    let before = pack_files(git_dir);
    git(repo, &["repack", "-q", "-d"]);
    let mut new: Vec<PathBuf> = pack_files(git_dir)
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert_eq!(new.len(), 1, "one new pack");
    new.remove(0)
}

/// The repository holds what the test is about; git would not say so if
/// a step above silently did something else.
fn assert_layout(git_dir: &Path) {
    let objects = git_dir.join("objects");
    for file in [
        "pack/multi-pack-index",
        "pack/custom.idx",
        "pack/orphan.idx",
        "info/packs",
        "info/commit-graphs/commit-graph-chain",
    ] {
        assert!(objects.join(file).is_file(), "{file} is missing");
    }
    assert!(!objects.join("pack/orphan.pack").exists());
    let names = dir_names(&objects.join("pack"));
    for ext in [".keep", ".bitmap", ".mtimes"] {
        let beside_a_pack = |n: &&String| n.starts_with("pack-") && n.ends_with(ext);
        assert!(names.iter().any(|n| beside_a_pack(&n)), "no {ext}");
    }
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("multi-pack-index-") && n.ends_with(".bitmap")),
        "no multi-pack-index bitmap"
    );
    let chain = fs::read_to_string(objects.join("info/commit-graphs/commit-graph-chain")).unwrap();
    assert_eq!(chain.lines().count(), 2, "two commit-graph layers");
    assert!(!loose_objects(git_dir).is_empty(), "loose objects too");
}
