//! Fork networks: forks that borrow the pool's objects through
//! `objects/info/alternates` (absolute, relative, chained), converted
//! self-contained and with `--shared-with` an earlier conversion of the
//! pool. git is the oracle for every name; the network stays
//! byte-identical.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::Mutex;

use crate::support::fork_network::{ForkNetwork, fork_network};
use crate::support::git::git;
use crate::support::history::commit_file;
use crate::support::oracle::{OracleMap, oracle_map};
use crate::support::refusal::{USAGE, assert_clean_exit, assert_refused_cleanly};
use crate::support::rehash::{
    rehash_command, rehash_convert, rehash_convert_ok, rehash_export_map, rehash_map,
    rehash_verify, rehash_verify_ok, run_ok,
};
use crate::support::scratch::scratch_dir;

/// git's names for every object `repo` stores, its alternates' included
/// (`oracle.sh --all-objects` lists them through git), once per repository.
fn oracle_of(repo: &Path) -> OracleMap {
    static CACHE: Mutex<BTreeMap<PathBuf, OracleMap>> = Mutex::new(BTreeMap::new());
    if let Some(map) = CACHE.lock().unwrap().get(repo) {
        return map.clone();
    }
    let map = oracle_map(repo, true, &[]);
    CACHE
        .lock()
        .unwrap()
        .insert(repo.to_path_buf(), map.clone());
    map
}

/// Commit subjects reachable from every ref, sorted.
fn subjects(repo: &Path) -> Vec<String> {
    let mut lines: Vec<String> = git(repo, &["log", "--all", "--format=%s"])
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

/// The rows DEST's own map holds (not those of the pools it shares with).
fn own_rows(dest: &Path) -> BTreeSet<String> {
    let db = rusqlite::Connection::open_with_flags(
        dest.join("rehash/map.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    let mut stmt = db.prepare("SELECT lower(hex(sha1)) FROM objects").unwrap();
    stmt.query_map([], |row| row.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Objects in DEST's own packs (`git count-objects`: local packs only).
fn packed_objects(dest: &Path) -> usize {
    let counts = git(dest, &["count-objects", "-v"]);
    let line = counts.lines().find(|l| l.starts_with("in-pack: ")).unwrap();
    line["in-pack: ".len()..].parse().unwrap()
}

/// `convert --quiet [extra] SOURCE DEST`, started without waiting.
fn spawn_convert(source: &Path, dest: &Path, extra: &[&str]) -> Child {
    rehash_command()
        .arg("convert")
        .arg("--quiet")
        .args(extra)
        .arg(source)
        .arg(dest)
        .spawn()
        .expect("start git-rehash convert")
}

/// A DEST converted from `fork` is complete and git works in it, and in
/// its clones: names equal git's, fsck passes, history equals the fork's.
fn assert_git_works(dest: &Path, fork: &Path) {
    assert_eq!(rehash_export_map(dest), oracle_of(fork), "map of {fork:?}");
    git(dest, &["fsck", "--strict"]);
    assert_eq!(subjects(dest), subjects(fork));
    rehash_verify_ok(dest, fork);
}

/// What a DEST converted with `--shared-with pool_dest` must be: the
/// share recorded and followed, only its own objects stored and mapped.
fn assert_shared(dest: &Path, fork: &Path, pool_dest: &Path) {
    let pool_objects = std::fs::canonicalize(pool_dest).unwrap().join("objects");
    assert_eq!(
        std::fs::read_to_string(dest.join("objects/info/alternates")).unwrap(),
        format!("{}\n", pool_objects.display())
    );
    let pool_names = rehash_export_map(pool_dest);
    let expected_own: BTreeSet<String> = oracle_of(fork)
        .into_keys()
        .filter(|id| !pool_names.contains_key(id))
        .collect();
    assert!(!expected_own.is_empty());
    assert_eq!(
        own_rows(dest),
        expected_own,
        "DEST maps its own objects only"
    );
    assert_eq!(
        packed_objects(dest),
        expected_own.len(),
        "and stores them only"
    );
    assert!(
        !dest.join("objects/info/commit-graph").exists(),
        "a shared DEST gets no commit-graph of its own"
    );
    // `map` answers for the pool's objects through the share.
    let (pool_commit, (pool_sha256, _)) = pool_names
        .iter()
        .find(|(_, (_, kind))| kind == "commit")
        .unwrap();
    let out = rehash_map(dest, &[pool_commit]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{pool_commit} {pool_sha256} commit\n")
    );
    let abbreviated = rehash_map(dest, &[&pool_sha256[..12]]);
    assert!(abbreviated.status.success(), "{abbreviated:?}");
    assert_git_works(dest, fork);
    // Clones: a copy of the objects (a transfer through the share), and
    // a local clone, which borrows from the pool as DEST does.
    let clones = scratch_dir("alternates-clone");
    for (name, extra) in [("copied", "--no-local"), ("local", "--local")] {
        git(
            &clones,
            &["clone", "-q", "--bare", extra, dest.to_str().unwrap(), name],
        );
        let clone = clones.join(name);
        git(&clone, &["fsck", "--strict"]);
        assert_eq!(subjects(&clone), subjects(dest));
    }
    assert!(
        !clones.join("copied/objects/info/alternates").exists(),
        "a --no-local clone holds every object itself"
    );
}

#[test]
fn forks_are_converted_self_contained_through_their_alternates() {
    let net = fork_network();
    let before = net.snapshot();
    // Absolute, relative (with a comment and an empty line), and a chain.
    for fork in [&net.fork_a, &net.fork_b, &net.fork_c] {
        let dest = scratch_dir("alternates-self").join("dest.git");
        rehash_convert_ok(fork, &dest, &["--quiet"]);
        assert!(!dest.join("objects/info/alternates").exists());
        assert_eq!(
            own_rows(&dest).len(),
            oracle_of(fork).len(),
            "every object DEST holds has its row"
        );
        assert_eq!(packed_objects(&dest), oracle_of(fork).len());
        assert_git_works(&dest, fork);
    }
    assert_eq!(before, net.snapshot(), "the network was written to");
}

/// The shared network's pool converted into `pool.git` of a new scratch
/// directory: (that directory, the pool's DEST).
fn pool_converted(label: &str) -> (PathBuf, PathBuf) {
    let dests = scratch_dir(label);
    let pool_dest = dests.join("pool.git");
    rehash_convert_ok(&fork_network().pool, &pool_dest, &["--quiet"]);
    (dests, pool_dest)
}

#[test]
fn forks_converted_in_parallel_share_the_pool_conversion() {
    let net = fork_network();
    let before = net.snapshot();
    let (dests, pool_dest) = pool_converted("alternates-shared");
    let share = ["--shared-with", pool_dest.to_str().unwrap()];
    let forks = [(&net.fork_a, "fork-a.git"), (&net.fork_b, "fork-b.git")];
    let running: Vec<Child> = forks
        .iter()
        .map(|(fork, name)| spawn_convert(fork, &dests.join(name), &share))
        .collect();
    for mut child in running {
        assert!(child.wait().unwrap().success());
    }
    for (fork, name) in forks {
        assert_shared(&dests.join(name), fork, &pool_dest);
    }
    assert_eq!(before, net.snapshot(), "the network was written to");
}

#[test]
fn shares_follow_a_chain_of_forks() {
    let net = fork_network();
    let before = net.snapshot();
    let (dests, pool_dest) = pool_converted("alternates-chain");
    let (mid_dest, fork_dest) = (dests.join("mid.git"), dests.join("fork-c.git"));
    let share =
        |pool: &Path| ["--quiet", "--shared-with", pool.to_str().unwrap()].map(String::from);
    rehash_convert_ok(
        &net.mid,
        &mid_dest,
        &share(&pool_dest).each_ref().map(String::as_str),
    );
    assert_shared(&mid_dest, &net.mid, &pool_dest);
    rehash_convert_ok(
        &net.fork_c,
        &fork_dest,
        &share(&mid_dest).each_ref().map(String::as_str),
    );
    // fork-c's own objects only: mid's and the pool's are borrowed.
    let own = own_rows(&fork_dest);
    let borrowed: BTreeSet<String> = own_rows(&mid_dest)
        .union(&own_rows(&pool_dest))
        .cloned()
        .collect();
    assert!(own.is_disjoint(&borrowed));
    assert_eq!(own.len() + borrowed.len(), oracle_of(&net.fork_c).len());
    assert_git_works(&fork_dest, &net.fork_c);
    assert_eq!(before, net.snapshot(), "the network was written to");
}

#[test]
fn an_incremental_run_of_a_shared_fork_keeps_the_share_and_converts_only_new_objects() {
    let net = ForkNetwork::build("alternates-incremental");
    let dests = scratch_dir("alternates-incremental-dest");
    let (pool_dest, fork_dest) = (dests.join("pool.git"), dests.join("fork-a.git"));
    rehash_convert_ok(&net.pool, &pool_dest, &["--quiet"]);
    rehash_convert_ok(
        &net.fork_a,
        &fork_dest,
        &["--quiet", "--shared-with", pool_dest.to_str().unwrap()],
    );
    let converted_before = rehash_export_map(&fork_dest);

    // New objects in the fork, and in the pool after its conversion (the
    // fork's store holds them through the alternate; the pool's DEST not).
    commit_file(&net.fork_a, "a.txt", "fork a, later\n", "fork a commit 2");
    git(
        &net.fork_b,
        &["push", "-q", net.pool.to_str().unwrap(), "topic"],
    );
    let expected = oracle_map(&net.fork_a, true, &[]);
    let new_objects = expected.len() - converted_before.len();
    assert!(new_objects > 3, "the fork and the pool both grew");

    // No --shared-with: the run keeps the share DEST records.
    let before = net.snapshot();
    let out = run_ok(
        rehash_command()
            .args(["convert", "--quiet", "--json"])
            .arg(&net.fork_a)
            .arg(&fork_dest),
    );
    assert_eq!(before, net.snapshot(), "the network was written to");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["result"]["objects_converted"], new_objects);
    assert_eq!(
        report["result"]["objects_in_shared_pool"],
        rehash_export_map(&pool_dest).len()
    );
    assert_eq!(rehash_export_map(&fork_dest), expected);
    let pool_objects = std::fs::canonicalize(&pool_dest).unwrap().join("objects");
    assert_eq!(
        std::fs::read_to_string(fork_dest.join("objects/info/alternates")).unwrap(),
        format!("{}\n", pool_objects.display())
    );
    git(&fork_dest, &["fsck", "--strict"]);
    rehash_verify_ok(&fork_dest, &net.fork_a);

    // repack folds the fork's two packs; it still borrows the rest.
    run_ok(rehash_command().args(["repack", "--quiet"]).arg(&fork_dest));
    assert_eq!(packed_objects(&fork_dest), own_rows(&fork_dest).len());
    git(&fork_dest, &["fsck", "--strict"]);

    // Another pool, or none, is not this DEST's share.
    let (other_pool, self_contained) = (dests.join("other-pool.git"), dests.join("self.git"));
    rehash_convert_ok(&net.pool, &other_pool, &["--quiet"]);
    rehash_convert_ok(&net.fork_a, &self_contained, &["--quiet"]);
    for (dest, pool, why) in [
        (&fork_dest, &other_pool, "other-pool.git"),
        (&self_contained, &pool_dest, "is self-contained"),
    ] {
        let out = rehash_convert(
            &net.fork_a,
            dest,
            &["--quiet", "--shared-with", pool.to_str().unwrap()],
        );
        assert_clean_exit(&out, USAGE, &[why, "--force"]);
    }
}

#[test]
fn verify_finds_a_broken_share() {
    let net = fork_network();
    let (dests, pool_dest) = pool_converted("alternates-broken-share");
    let dest = dests.join("fork-a.git");
    let share = ["--quiet", "--shared-with", pool_dest.to_str().unwrap()];
    rehash_convert_ok(&net.fork_a, &dest, &share);
    let failure = |mentions: &[&str]| {
        let out = rehash_verify(&dest, Some(&net.fork_a));
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        for m in mentions {
            assert!(stdout.contains(m), "{m:?} in:\n{stdout}");
        }
    };
    // Without its alternates file, DEST's objects reference absent ones.
    let alternates = dest.join("objects/info/alternates");
    let text = std::fs::read(&alternates).unwrap();
    std::fs::remove_file(&alternates).unwrap();
    failure(&["shared pool:", "does not name the pool's"]);
    std::fs::write(&alternates, text).unwrap();
    rehash_verify_ok(&dest, &net.fork_a);
    // A pool whose objects are gone no longer lends what its map names.
    for idx in std::fs::read_dir(pool_dest.join("objects/pack")).unwrap() {
        let idx = idx.unwrap().path();
        if idx.extension().is_some_and(|e| e == "idx") {
            std::fs::remove_file(idx).unwrap();
        }
    }
    failure(&["has no object in the pool", "pool.git/rehash/map.sqlite"]);
}

#[test]
fn sharing_needs_a_finished_conversion_of_the_pool() {
    let net = fork_network();
    let before = net.snapshot();
    let dest = scratch_dir("alternates-bad-pool").join("dest.git");
    // The pool's SHA-1 repository is not its conversion.
    let out = rehash_convert(
        &net.fork_a,
        &dest,
        &["--quiet", "--shared-with", net.pool.to_str().unwrap()],
    );
    assert_refused_cleanly(
        &out,
        &dest,
        &["cannot share objects with", "not a git-rehash conversion"],
    );
    assert!(!dest.exists(), "a refused run leaves no DEST");
    let missing = dest.with_file_name("no-such-pool.git");
    let out = rehash_convert(
        &net.fork_a,
        &dest,
        &["--quiet", "--shared-with", missing.to_str().unwrap()],
    );
    assert_refused_cleanly(&out, &dest, &["no-such-pool.git"]);
    assert_eq!(before, net.snapshot(), "the network was written to");
}

#[test]
fn dest_inside_a_repository_the_fork_borrows_from_is_refused() {
    let net = ForkNetwork::build("alternates-dest-inside");
    let before = net.snapshot();
    let dest = net.pool.join("converted.git");
    let out = rehash_convert(&net.fork_a, &dest, &["--quiet"]);
    assert_clean_exit(&out, USAGE, &["inside the source repository", "pool.git"]);
    assert!(!dest.join("config").exists());
    assert_eq!(before, net.snapshot(), "the network was written to");
}

#[test]
fn the_oracle_lists_the_objects_alternates_lend() {
    // git reads a fork's alternates, so the ground truth the tests above
    // compare with holds the pool's objects too.
    let net = fork_network();
    let pool = oracle_of(&net.pool);
    let fork = oracle_of(&net.fork_b);
    assert!(pool.keys().all(|id| fork.contains_key(id)));
    assert!(fork.len() > pool.len());
}
