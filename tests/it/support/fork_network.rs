//! A fork network as forges keep one: a bare pool repository and forks
//! that borrow its objects through `objects/info/alternates`, each with
//! commits of its own, some packed and some loose.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::file_tree::tree_checksums;
use super::git::git;
use super::history::commit_file;
use super::scratch::scratch_dir;

/// The network, all under `root` (and nothing else there).
pub struct ForkNetwork {
    pub root: PathBuf,
    /// `pool.git`: bare, one pack plus loose objects pushed later.
    pub pool: PathBuf,
    /// `git clone --shared` of the pool: an absolute alternate; a pack of
    /// its own objects (`repack -l`) and loose ones.
    pub fork_a: PathBuf,
    /// A clone whose alternates file was rewritten: a comment, an empty
    /// line and the pool as a path relative to its objects directory.
    pub fork_b: PathBuf,
    /// A fork of the pool (relative alternate) with a commit of its own,
    /// which `fork_c` forks in turn.
    pub mid: PathBuf,
    /// A fork of `mid` (absolute alternate): a chain fork_c -> mid -> pool.
    pub fork_c: PathBuf,
}

impl ForkNetwork {
    /// Builds a network of its own in a fresh scratch directory.
    pub fn build(label: &str) -> ForkNetwork {
        let seed = scratch_dir(&format!("{label}-seed")).join("seed");
        let root = scratch_dir(label);
        std::fs::create_dir_all(seed.join("src/lib")).unwrap();
        git(&seed, &["init", "-q", "-b", "main"]);
        for i in 0..4 {
            commit_file(
                &seed,
                &format!("src/lib/f{}.txt", i % 2),
                &format!("pool version {i}\n").repeat(30),
                &format!("pool commit {i}"),
            );
        }
        git(&seed, &["tag", "-a", "-m", "pool release", "v1"]);
        git(&seed, &["branch", "stable"]);
        let pool = root.join("pool.git");
        git(
            &root,
            &[
                "clone",
                "-q",
                "--bare",
                "--no-local",
                seed.to_str().unwrap(),
                "pool.git",
            ],
        );
        // A few objects pushed later stay loose in the pool.
        commit_file(&seed, "README", "the pool\n", "pool commit 4");
        git(&seed, &["push", "-q", pool.to_str().unwrap(), "main"]);

        let fork_a = shared_clone(&root, &pool, "fork-a");
        commit_file(&fork_a, "src/lib/f0.txt", "fork a\n", "fork a commit 0");
        git(&fork_a, &["repack", "-adlq"]);
        commit_file(&fork_a, "a.txt", "fork a, loose\n", "fork a commit 1");
        git(&fork_a, &["tag", "fork-a-tip"]);

        let fork_b = shared_clone(&root, &pool, "fork-b");
        std::fs::write(
            alternates_file(&fork_b),
            "# borrowed from the pool\n\n../../../pool.git/objects\n",
        )
        .unwrap();
        git(&fork_b, &["checkout", "-q", "-b", "topic"]);
        commit_file(&fork_b, "src/b.txt", "fork b\n", "fork b commit 0");
        commit_file(&fork_b, "src/b.txt", "fork b, again\n", "fork b commit 1");

        let mid = shared_clone(&root, &pool, "mid");
        std::fs::write(alternates_file(&mid), "../../../pool.git/objects/\n").unwrap();
        commit_file(&mid, "mid.txt", "mid\n", "mid commit 0");
        let fork_c = shared_clone(&root, &mid, "fork-c");
        commit_file(&fork_c, "c.txt", "fork c\n", "fork c commit 0");

        ForkNetwork {
            root,
            pool,
            fork_a,
            fork_b,
            mid,
            fork_c,
        }
    }

    /// Every file of the network (pool, forks, alternates files), for
    /// "nothing was written" assertions.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, [u8; 32]> {
        tree_checksums(&self.root)
    }
}

/// The network shared by the tests that only read it.
pub fn fork_network() -> &'static ForkNetwork {
    static NETWORK: OnceLock<ForkNetwork> = OnceLock::new();
    NETWORK.get_or_init(|| ForkNetwork::build("fork-network"))
}

/// `git clone --shared <from> <name>` inside `root`.
fn shared_clone(root: &Path, from: &Path, name: &str) -> PathBuf {
    git(
        root,
        &["clone", "-q", "--shared", from.to_str().unwrap(), name],
    );
    root.join(name)
}

/// The alternates file of the work-tree repository `repo`.
pub fn alternates_file(repo: &Path) -> PathBuf {
    repo.join(".git/objects/info/alternates")
}
