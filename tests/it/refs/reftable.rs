//! Reftable repositories: a reftable SOURCE is read (never written) and
//! converted into a DEST of either ref format, whose refs and reflogs git
//! reads back as SOURCE's with SHA-256 names; a files SOURCE converts into
//! a reftable DEST, which later runs keep updating; a damaged table is
//! refused by name.

use std::path::{Path, PathBuf};

use crate::support::file_tree::{copy_dir, tree_checksums};
use crate::support::git::{expect_success, git, git_command};
use crate::support::history::commit_file;
use crate::support::id_translation::translate_ids;
use crate::support::oracle::{OracleMap, oracle_map};
use crate::support::refusal::{USAGE, assert_clean_exit, assert_refused_cleanly};
use crate::support::rehash::{
    rehash_convert, rehash_convert_ok, rehash_export_map, rehash_verify_ok,
};
use crate::support::scratch::scratch_dir;

/// The refs a test compares, as git prints them.
const FOR_EACH_REF: &str =
    "--format=%(refname) %(objecttype) %(objectname) %(*objectname) %(symref)";

/// Reflog fields a test compares: the id, then (verbatim: a message may
/// quote a SHA-1, which stays as it is) selector, message, identity, time.
pub const REFLOG: &str = "--format=%H%x00%gD %gs|%gn|%ge|%ct";

/// git that leaves each transaction in a table of its own, so the
/// source's stack has newer tables shadowing older ones.
fn git_stacking(dir: &Path, args: &[&str]) -> String {
    let out = git_command(dir)
        .args(args)
        .env("GIT_TEST_REFTABLE_AUTOCOMPACTION", "false")
        .output()
        .expect("run git");
    let stdout = expect_success(&format!("git {args:?}"), out);
    String::from_utf8(stdout)
        .expect("utf-8")
        .trim_end()
        .to_owned()
}

/// A work tree whose refs are in reftable: branches, annotated (and
/// nested) tags, a lightweight tag, a symbolic ref, reflogs with and
/// without messages, a deleted branch, ORIG_HEAD, and HEAD detached.
fn reftable_source(root: &Path) -> PathBuf {
    let repo = root.join("source");
    git(
        root,
        &[
            "init",
            "-q",
            "-b",
            "main",
            "--ref-format=reftable",
            "source",
        ],
    );
    let commit = |file: &str, message: &str| {
        std::fs::write(repo.join(file), format!("{message}\n")).expect("write");
        git_stacking(&repo, &["add", file]);
        git_stacking(&repo, &["commit", "-q", "-m", message]);
    };
    commit("a", "one");
    commit("a", "two");
    git_stacking(&repo, &["checkout", "-q", "-b", "dev"]);
    commit("b", "three");
    git_stacking(&repo, &["checkout", "-q", "main"]);
    commit("a", "four");
    git_stacking(&repo, &["tag", "-a", "v1", "-m", "tag v1"]);
    git_stacking(&repo, &["tag", "-a", "v1-nested", "-m", "nested", "v1"]);
    git_stacking(&repo, &["tag", "light", "HEAD~2"]);
    git_stacking(&repo, &["branch", "gone", "dev"]);
    git_stacking(&repo, &["branch", "-D", "gone"]);
    git_stacking(
        &repo,
        &["symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/dev"],
    );
    git_stacking(&repo, &["update-ref", "refs/heads/nomsg", "HEAD"]);
    git_stacking(
        &repo,
        &["update-ref", "-m", "by hand", "refs/heads/nomsg", "HEAD~1"],
    );
    git_stacking(&repo, &["reset", "-q", "--hard", "HEAD~1"]);
    git_stacking(&repo, &["reset", "-q", "--hard", "ORIG_HEAD"]);
    git_stacking(&repo, &["checkout", "-q", "--detach", "HEAD~1"]);
    let tables = std::fs::read_to_string(repo.join(".git/reftable/tables.list")).unwrap();
    assert!(tables.lines().count() > 10, "a stack of many tables");
    repo
}

/// DEST's refs, HEAD and reflogs of `logged` read by git equal SOURCE's
/// with every id translated through `map`.
fn assert_same_refs(source: &Path, dest: &Path, map: &OracleMap, logged: &[&str]) {
    let expected = translate_ids(map, &git(source, &["for-each-ref", FOR_EACH_REF]));
    assert_eq!(git(dest, &["for-each-ref", FOR_EACH_REF]), expected);
    let head = |repo: &Path| {
        let symbolic = git_command(repo)
            .args(["symbolic-ref", "-q", "HEAD"])
            .output()
            .expect("git runs");
        let name = String::from_utf8_lossy(&symbolic.stdout).trim().to_owned();
        (name, git(repo, &["rev-parse", "HEAD"]))
    };
    let (source_name, source_id) = head(source);
    assert_eq!(head(dest), (source_name, translate_ids(map, &source_id)));
    for name in logged {
        let want = translated_reflog(map, &git(source, &["reflog", "show", REFLOG, name]));
        assert!(!want.is_empty(), "{name} has a reflog");
        assert_eq!(git(dest, &["reflog", "show", REFLOG, name]), want, "{name}");
    }
    assert_eq!(
        git(dest, &["reflog", "list"]),
        git(source, &["reflog", "list"])
    );
    git(dest, &["fsck", "--strict", "--no-progress"]);
    rehash_verify_ok(dest, source);
}

/// [`REFLOG`] lines with the ids translated, the rest as it is.
pub fn translated_reflog(map: &OracleMap, text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let (id, rest) = line.split_once('\0').expect("an id, NUL, the rest");
            format!("{}\0{rest}", translate_ids(map, id))
        })
        .collect();
    lines.join("\n")
}

#[test]
fn a_reftable_source_converts_into_both_ref_formats() {
    let root = scratch_dir("reftable-source");
    let source = reftable_source(&root);
    let logged = [
        "HEAD",
        "refs/heads/main",
        "refs/heads/dev",
        "refs/heads/nomsg",
    ];
    // HEAD detached, then symbolic: each converted into fresh DESTs.
    for (round, head) in ["detached", "symbolic"].into_iter().enumerate() {
        if head == "symbolic" {
            git(&source, &["checkout", "-q", "main"]);
        }
        let before = tree_checksums(&source);
        let reftable = root.join(format!("reftable-{round}.git"));
        let files = root.join(format!("files-{round}.git"));
        rehash_convert_ok(&source, &reftable, &["--quiet"]);
        rehash_convert_ok(&source, &files, &["--quiet", "--ref-format=files"]);
        assert_eq!(before, tree_checksums(&source), "SOURCE was modified");

        let map = rehash_export_map(&reftable);
        assert_eq!(map, rehash_export_map(&files));
        assert_eq!(
            map,
            oracle_map(&source, true, &[]),
            "map differs from git's"
        );
        // The default is SOURCE's format.
        let config = std::fs::read_to_string(reftable.join("config")).unwrap();
        assert!(config.contains("refstorage = reftable"), "{config}");
        assert!(reftable.join("reftable/tables.list").is_file());
        assert!(!reftable.join("packed-refs").exists() && !reftable.join("logs").exists());
        let config = std::fs::read_to_string(files.join("config")).unwrap();
        assert!(!config.contains("refstorage"), "{config}");
        assert!(files.join("packed-refs").is_file() && !files.join("reftable").exists());
        for dest in [&reftable, &files] {
            assert_same_refs(&source, dest, &map, &logged);
        }
    }
}

#[test]
fn a_files_source_converts_into_a_reftable_dest_that_later_runs_update() {
    let root = scratch_dir("reftable-dest");
    let source = root.join("source");
    git(&root, &["init", "-q", "-b", "main", "source"]);
    commit_file(&source, "a", "1\n", "one");
    commit_file(&source, "a", "2\n", "two");
    git(&source, &["branch", "dev"]);
    git(&source, &["tag", "-a", "v1", "-m", "tag v1"]);
    git(&source, &["pack-refs", "--all"]);
    commit_file(&source, "a", "3\n", "three");
    git(&source, &["tag", "-a", "v2", "-m", "tag v2"]);
    let dest = root.join("dest.git");
    rehash_convert_ok(&source, &dest, &["--quiet", "--ref-format=reftable"]);
    let logged = ["HEAD", "refs/heads/main", "refs/heads/dev"];
    assert_same_refs(&source, &dest, &rehash_export_map(&dest), &logged);
    assert!(dest.join("reftable/tables.list").is_file());
    assert_eq!(
        std::fs::read_to_string(dest.join("refs/heads")).unwrap(),
        "this repository uses the reftable format\n"
    );

    // A later run: new commits, a deleted branch, a new tag; DEST stays
    // reftable without being asked, its stack one table again.
    commit_file(&source, "a", "4\n", "four");
    git(&source, &["branch", "-D", "dev"]);
    git(&source, &["tag", "light"]);
    rehash_convert_ok(&source, &dest, &["--quiet"]);
    let map = rehash_export_map(&dest);
    assert_same_refs(&source, &dest, &map, &["HEAD", "refs/heads/main"]);
    let tables = std::fs::read_to_string(dest.join("reftable/tables.list")).unwrap();
    assert_eq!(tables.lines().count(), 1, "{tables}");
    assert_eq!(std::fs::read_dir(dest.join("reftable")).unwrap().count(), 2);

    // git writes to it, and the next run brings it back in line.
    git(&dest, &["update-ref", "refs/heads/extra", "HEAD"]);
    rehash_convert_ok(&source, &dest, &["--quiet"]);
    assert_same_refs(&source, &dest, &map, &["HEAD", "refs/heads/main"]);

    // Asking for the other format is refused before anything is done.
    let out = rehash_convert(&source, &dest, &["--ref-format=files"]);
    assert_clean_exit(
        &out,
        USAGE,
        &["keeps its refs as reftable", "asks for files"],
    );
    assert_same_refs(&source, &dest, &map, &["HEAD", "refs/heads/main"]);
}

#[test]
fn a_damaged_source_table_is_refused_by_name() {
    let root = scratch_dir("reftable-damaged");
    let good = reftable_source(&root);
    let source = root.join("damaged");
    copy_dir(&good, &source);
    let list = std::fs::read_to_string(source.join(".git/reftable/tables.list")).unwrap();
    let table = source
        .join(".git/reftable")
        .join(list.lines().next().unwrap());
    let mut bytes = std::fs::read(&table).unwrap();
    let last = bytes.len() - 8;
    bytes[last] ^= 0xff;
    std::fs::write(&table, &bytes).unwrap();
    let dest = root.join("dest.git");
    let out = rehash_convert(&source, &dest, &[]);
    let name = table.file_name().unwrap().to_str().unwrap();
    assert_refused_cleanly(&out, &dest, &[name, "damaged reftable", "CRC"]);
    assert!(!dest.exists());
}
