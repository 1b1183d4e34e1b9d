//! `--rekey-notes`, checked with real git: `git notes` in DEST finds the
//! notes under the SHA-256 names of their objects, the re-keyed tree has
//! the layout git itself writes (git adding the same notes in a SHA-256
//! repository is the oracle), re-runs are idempotent and follow SOURCE,
//! and `verify` accepts the created objects.

use std::path::{Path, PathBuf};

use crate::support::git::{git, git_command, git_with_input};
use crate::support::history::commit_file;
use crate::support::rehash::{rehash_convert_ok, rehash_export_map, rehash_map, rehash_verify_ok};
use crate::support::scratch::scratch_dir;

/// Commits `message` as the content of file `f`.
fn commit(repo: &Path, message: &str) -> String {
    commit_file(repo, "f", &format!("{message}\n"), message)
}

struct Source {
    repo: PathBuf,
    /// Commits A, B, C.
    commits: Vec<String>,
    /// A blob with a note too.
    blob: String,
}

/// Notes on A and C and on a blob (refs/notes/commits), and a second notes
/// ref whose tree also holds a non-note file and a note on an object the
/// repository does not have.
fn build_source(label: &str) -> Source {
    let root = scratch_dir(label);
    git(&root, &["init", "-q", "-b", "main", "repo"]);
    let repo = root.join("repo");
    let commits: Vec<String> = ["A", "B", "C"].iter().map(|m| commit(&repo, m)).collect();
    std::fs::write(repo.join("blob.txt"), "a blob\n").unwrap();
    let blob = git(&repo, &["hash-object", "-w", "blob.txt"]);
    git(&repo, &["notes", "add", "-m", "note on A", &commits[0]]);
    git(&repo, &["notes", "add", "-m", "note on C", &commits[2]]);
    git(&repo, &["notes", "add", "-m", "note on a blob", &blob]);
    git(
        &repo,
        &[
            "notes",
            "--ref=review",
            "add",
            "-m",
            "reviewed",
            &commits[1],
        ],
    );
    // Extend refs/notes/review's tree with a README and a dangling note.
    let note_blob = git(
        &repo,
        &["rev-parse", &format!("refs/notes/review:{}", commits[1])],
    );
    let readme = git(&repo, &["hash-object", "-w", "f"]);
    let tree = git_with_input(
        &repo,
        &["mktree"],
        format!(
            "100644 blob {note_blob}\t{}\n100644 blob {readme}\tREADME\n100644 blob {note_blob}\t{}\n",
            commits[1],
            "0123456789".repeat(4)
        )
        .as_bytes(),
    );
    let tree = String::from_utf8(tree).unwrap().trim().to_owned();
    let parent = git(&repo, &["rev-parse", "refs/notes/review"]);
    let extended = git(
        &repo,
        &[
            "commit-tree",
            &tree,
            "-p",
            &parent,
            "-m",
            "extend review notes",
        ],
    );
    git(&repo, &["update-ref", "refs/notes/review", &extended]);
    Source {
        repo,
        commits,
        blob,
    }
}

#[test]
fn rekeyed_notes_are_found_by_git_in_dest() {
    let src = build_source("notes-rekey");
    let dest = src.repo.parent().unwrap().join("dest.git");
    let out = rehash_convert_ok(&src.repo, &dest, &["--rekey-notes"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("notes: refs/notes/commits re-keyed: 3 note(s)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 note(s) on objects SOURCE does not have"),
        "{stderr}"
    );
    let map = rehash_export_map(&dest);
    let sha256 = |sha1: &str| map[sha1].0.clone();

    let a = sha256(&src.commits[0]);
    assert_eq!(git(&dest, &["notes", "show", &a]), "note on A");
    assert_eq!(
        git(&dest, &["notes", "show", &sha256(&src.blob)]),
        "note on a blob"
    );
    assert_eq!(
        git(
            &dest,
            &["log", "-1", "--format=%N", &sha256(&src.commits[2])]
        ),
        "note on C"
    );
    let listed: Vec<String> = git(&dest, &["notes", "list"])
        .lines()
        .map(|l| l.split(' ').nth(1).unwrap().to_owned())
        .collect();
    let mut want = vec![a.clone(), sha256(&src.commits[2]), sha256(&src.blob)];
    want.sort();
    let mut listed_sorted = listed.clone();
    listed_sorted.sort();
    assert_eq!(listed_sorted, want);
    assert_eq!(
        git(
            &dest,
            &["notes", "--ref=review", "show", &sha256(&src.commits[1])]
        ),
        "reviewed"
    );
    // Non-note entries and the note on a missing object stay at their paths.
    let review_paths = git(&dest, &["ls-tree", "--name-only", "refs/notes/review"]);
    assert!(review_paths.contains("README"), "{review_paths}");
    assert!(
        review_paths.contains(&"0123456789".repeat(4)),
        "{review_paths}"
    );

    // One commit on top of the translated one, deterministic identity.
    let notes_sha1 = git(&src.repo, &["rev-parse", "refs/notes/commits"]);
    let top = git(&dest, &["rev-parse", "refs/notes/commits"]);
    assert_eq!(
        git(&dest, &["rev-parse", &format!("{top}^")]),
        sha256(&notes_sha1)
    );
    // Author and committer are both the source notes commit's committer.
    let source_committer = git(
        &src.repo,
        &[
            "log",
            "-1",
            "--format=%cn <%ce> %cd",
            "--date=raw",
            &notes_sha1,
        ],
    );
    assert_eq!(
        git(
            &dest,
            &[
                "log",
                "-1",
                "--format=%s%n%an <%ae> %ad%n%cn <%ce> %cd",
                "--date=raw",
                &top
            ]
        ),
        format!(
            "Notes re-keyed to SHA-256 names by git-rehash\n{source_committer}\n{source_committer}"
        )
    );
    git(&dest, &["fsck", "--strict", "--no-progress"]);
    let report = rehash_verify_ok(&dest, &src.repo);
    assert!(report.contains("created by the conversion"), "{report}");

    // `map` knows pairs only: a created object has no SHA-1.
    let out = rehash_map(&dest, &[&top]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("{top} missing")
    );
    assert!(!rehash_export_map(&dest).values().any(|(s, _)| *s == top));

    // Re-run: same commit. SOURCE's notes move: the ref follows.
    rehash_convert_ok(&src.repo, &dest, &["--quiet", "--rekey-notes"]);
    assert_eq!(git(&dest, &["rev-parse", "refs/notes/commits"]), top);
    git(
        &src.repo,
        &["notes", "add", "-m", "note on B", &src.commits[1]],
    );
    rehash_convert_ok(&src.repo, &dest, &["--quiet", "--rekey-notes"]);
    let map = rehash_export_map(&dest);
    let moved = git(&dest, &["rev-parse", "refs/notes/commits"]);
    assert_ne!(moved, top);
    let new_notes_sha1 = git(&src.repo, &["rev-parse", "refs/notes/commits"]);
    assert_eq!(
        git(&dest, &["rev-parse", &format!("{moved}^")]),
        map[&new_notes_sha1].0
    );
    assert_eq!(
        git(&dest, &["notes", "show", &map[&src.commits[1]].0]),
        "note on B"
    );
    git(&dest, &["fsck", "--strict", "--no-progress"]);
    rehash_verify_ok(&dest, &src.repo);
}

#[test]
fn rekeyed_notes_refs_are_set_in_a_reftable_dest() {
    let src = build_source("notes-rekey-reftable");
    let dest = src.repo.parent().unwrap().join("dest.git");
    let args = ["--quiet", "--rekey-notes", "--ref-format=reftable"];
    rehash_convert_ok(&src.repo, &dest, &args);
    let map = rehash_export_map(&dest);
    assert_eq!(
        git(&dest, &["notes", "show", &map[&src.commits[0]].0]),
        "note on A"
    );
    // The re-keyed refs are one more table on top of the converted refs.
    let tables = std::fs::read_to_string(dest.join("reftable/tables.list")).unwrap();
    assert_eq!(tables.lines().count(), 2, "{tables}");
    let top = git(&dest, &["rev-parse", "refs/notes/commits"]);
    let notes_sha1 = git(&src.repo, &["rev-parse", "refs/notes/commits"]);
    assert_eq!(
        git(&dest, &["rev-parse", &format!("{top}^")]),
        map[&notes_sha1].0
    );
    git(&dest, &["fsck", "--strict", "--no-progress"]);
    rehash_verify_ok(&dest, &src.repo);
    rehash_convert_ok(&src.repo, &dest, &args);
    assert_eq!(git(&dest, &["rev-parse", "refs/notes/commits"]), top);
}

#[test]
fn without_rekey_notes_the_notes_tree_is_only_translated() {
    let src = build_source("notes-plain");
    let dest = src.repo.parent().unwrap().join("dest.git");
    rehash_convert_ok(&src.repo, &dest, &["--quiet"]);
    let map = rehash_export_map(&dest);
    let notes_sha1 = git(&src.repo, &["rev-parse", "refs/notes/commits"]);
    assert_eq!(
        git(&dest, &["rev-parse", "refs/notes/commits"]),
        map[&notes_sha1].0
    );
    let shown = git_command(&dest)
        .args(["notes", "show", &map[&src.commits[0]].0])
        .output()
        .unwrap();
    assert!(
        !shown.status.success(),
        "SHA-1 paths are not notes in SHA-256"
    );
    let report = rehash_verify_ok(&dest, &src.repo);
    assert!(!report.contains("created by the conversion"), "{report}");
}

#[test]
fn rekeyed_layout_equals_what_git_notes_writes() {
    // Few notes: a flat tree. 160: every first hex digit holds several
    // notes, so git fans out one level.
    layout_matches_git(20, 64);
    layout_matches_git(160, 65);
}

/// Converts `n_notes` notes with --rekey-notes, checks the paths are
/// `path_len` long, and compares the tree with git's own for the same notes.
fn layout_matches_git(n_notes: usize, path_len: usize) {
    let root = scratch_dir("notes-fanout");
    git(&root, &["init", "-q", "-b", "main", "repo"]);
    let repo = root.join("repo");
    commit(&repo, "A");
    // N commits on a side branch, and a note on each, in one fast-import.
    let mut import = String::new();
    for i in 0..n_notes {
        import.push_str(&format!(
            "commit refs/heads/side\nmark :{}\ncommitter C <c@example.invalid> 1700000000 +0000\ndata <<EOT\ncommit {i}\nEOT\n",
            i + 1
        ));
    }
    import.push_str("commit refs/notes/commits\ncommitter N <n@example.invalid> 1700000000 +0000\ndata 6\nnotes\n");
    for i in 0..n_notes {
        import.push_str(&format!("N inline :{}\ndata <<EOT\nnote {i}\nEOT\n", i + 1));
    }
    git_with_input(&repo, &["fast-import", "--quiet"], import.as_bytes());

    let dest = root.join("dest.git");
    rehash_convert_ok(&repo, &dest, &["--quiet", "--rekey-notes"]);
    let ours = git(&dest, &["rev-parse", "refs/notes/commits^{tree}"]);
    let depth = git(
        &dest,
        &["ls-tree", "-r", "--name-only", "refs/notes/commits"],
    );
    assert_eq!(depth.lines().count(), n_notes);
    assert!(depth.lines().all(|p| p.len() == path_len), "{depth}");

    // The oracle: git adds the same notes, one by one, in DEST.
    let map = rehash_export_map(&dest);
    let listed = git(&repo, &["notes", "list"]);
    for line in listed.lines() {
        let (note, object) = line.split_once(' ').unwrap();
        let text = git(&repo, &["cat-file", "blob", note]);
        git(
            &dest,
            &["notes", "--ref=oracle", "add", "-m", &text, &map[object].0],
        );
    }
    assert_eq!(git(&dest, &["rev-parse", "refs/notes/oracle^{tree}"]), ours);
}
