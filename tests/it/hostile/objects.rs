//! Objects that are corrupt, malformed or missing, and the policies for
//! real-world quirks (unknown commit headers, unmapped gitlinks). Every
//! refusal names the object; SOURCE stays byte-identical.
//!
//! Collisions: `hostile::collision` (the hasher on the public collision
//! files) and `src/convert/scan/collision_tests.rs` (a flagged object
//! stops the pipeline).

use crate::support::git::git;
use crate::support::raw_object::{tree_entry, write_literally};
use crate::support::repo_files::loose_object_path;
use crate::support::scratch::scratch_dir;
use crate::support::watched_source::{Source, bare_repo, small_repo, small_repo_in};

/// An id no object in these repositories has.
const ABSENT_ID: [u8; 20] = [0x11; 20];

#[test]
fn body_that_does_not_hash_to_its_name() {
    let mut source = small_repo("obj-hash-mismatch");
    let blob = git(&source.path, &["rev-parse", "HEAD:f0.txt"]);
    let other = write_literally(&source.git_dir, "blob", b"an unrelated body\n");
    // Store the unrelated object's bytes under the blob's name.
    let path = |id: &str| loose_object_path(&source.git_dir, id);
    let (target, bytes) = (path(&blob), std::fs::read(path(&other)).unwrap());
    let mut perms = std::fs::metadata(&target).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&target, perms).unwrap();
    std::fs::write(&target, bytes).unwrap();
    source.refused(&[
        &format!("object {blob} in {}", target.display()),
        &format!("hashes to {other}"),
        "corrupt",
    ]);
}

#[test]
fn corrupt_loose_object_stream() {
    let mut source = small_repo("obj-loose-zlib");
    let blob = git(&source.path, &["rev-parse", "HEAD:file.txt"]);
    let target = loose_object_path(&source.git_dir, &blob);
    let mut bytes = std::fs::read(&target).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::remove_file(&target).unwrap();
    std::fs::write(&target, bytes).unwrap();
    source.refused(&[&blob, &target.display().to_string()]);
}

/// An empty bare repository holding only the object `body` of type
/// `kind`, written literally; and the object's name.
fn repo_with_literal(label: &str, kind: &str, body: &[u8]) -> (Source, String) {
    let source = bare_repo(label);
    let id = write_literally(&source.git_dir, kind, body);
    (source, id)
}

#[test]
fn tree_with_non_octal_mode() {
    let (mut source, id) =
        repo_with_literal("tree-mode", "tree", &tree_entry("10064x", "f", &ABSENT_ID));
    source.refused(&[&format!("tree {id} is malformed"), "mode is not octal"]);
}

#[test]
fn tree_with_empty_name() {
    let (mut source, id) =
        repo_with_literal("tree-name", "tree", &tree_entry("100644", "", &ABSENT_ID));
    source.refused(&[&format!("tree {id} is malformed"), "empty name"]);
}

#[test]
fn tree_with_truncated_id() {
    let (mut source, id) = repo_with_literal(
        "tree-truncated",
        "tree",
        &tree_entry("100644", "f", &ABSENT_ID[..7]),
    );
    source.refused(&[&format!("tree {id} is malformed")]);
}

/// A commit body: `header` lines, then author, committer and message.
fn commit_body(header: &str) -> Vec<u8> {
    format!("{header}author A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\nmessage\n").into_bytes()
}

#[test]
fn commit_with_malformed_tree_line() {
    let (mut source, id) = repo_with_literal(
        "commit-tree-line",
        "commit",
        &commit_body("tree 4b825dc642cb6eb9a060e54bf8d69288fbee49zz\n"),
    );
    source.refused(&[&format!("commit {id} is malformed"), "bad tree line"]);
}

#[test]
fn commit_with_malformed_parent_line() {
    let body = commit_body("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent 1234\n");
    let (mut source, id) = repo_with_literal("commit-parent-line", "commit", &body);
    source.refused(&[&format!("commit {id} is malformed"), "bad parent line"]);
}

#[test]
fn commit_whose_last_header_line_has_no_lf() {
    let body =
        b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@example.com> 1700000000 +0000";
    let (mut source, id) = repo_with_literal("commit-no-lf", "commit", body);
    source.refused(&[
        &format!("commit {id} is malformed"),
        "header line without LF",
    ]);
}

#[test]
fn tag_with_bad_object_line() {
    let body = b"object not-an-id\ntype commit\ntag v1\ntagger A <a@example.com> 1700000000 +0000\n\nmsg\n";
    let (mut source, id) = repo_with_literal("tag-object-line", "tag", body);
    source.refused(&[&format!("tag {id} is malformed"), "object <id>"]);
}

#[test]
fn missing_object_referenced_by_a_reachable_commit() {
    refuses_a_missing_blob("obj-missing", "sha1");
}

/// A repository of object format `format` whose tree names a blob that was
/// removed: refused, naming the blob and the tree.
pub(super) fn refuses_a_missing_blob(label: &str, format: &str) {
    let mut source = small_repo_in(label, format);
    let blob = git(&source.path, &["rev-parse", "HEAD:f1.txt"]);
    let tree = git(&source.path, &["rev-parse", "HEAD^{tree}"]);
    std::fs::remove_file(loose_object_path(&source.git_dir, &blob)).unwrap();
    source.refused(&[
        "object(s) are missing from the repository",
        &format!("{blob} (entry of tree {tree})"),
        "git fsck",
    ]);
}

// ------------------------------------------------------------------ policies

/// A commit with header fields git 2.47 does not know, on branch `jj`.
fn repo_with_unknown_headers(label: &str) -> (Source, String) {
    let source = small_repo(label);
    let tree = git(&source.path, &["rev-parse", "HEAD^{tree}"]);
    let head = git(&source.path, &["rev-parse", "HEAD"]);
    let body = format!(
        "tree {tree}\nparent {head}\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\nchange-id zvlyxqkpnmrstuwo\ngitbutler-headers-version 2\n\nfrom jj\n"
    );
    let id = write_literally(&source.git_dir, "commit", body.as_bytes());
    git(&source.path, &["update-ref", "refs/heads/jj", &id]);
    (source, id)
}

#[test]
fn unknown_commit_headers_are_copied_and_counted_by_default() {
    let (mut source, _) = repo_with_unknown_headers("policy-headers-copy");
    let (dest, stderr) = source.converts(&[]);
    assert!(
        stderr.contains("note: copied unknown commit header 'change-id' verbatim in 1 commit(s)"),
        "{stderr}"
    );
    assert!(stderr.contains("'gitbutler-headers-version'"), "{stderr}");
    let body = git(&dest, &["cat-file", "commit", "refs/heads/jj"]);
    assert!(body.contains("\nchange-id zvlyxqkpnmrstuwo\n"), "{body}");
}

#[test]
fn unknown_commit_headers_are_refused_with_strict_headers() {
    let (mut source, id) = repo_with_unknown_headers("policy-headers-strict");
    let dest = scratch_dir("hostile-dest").join("dest.git");
    source.refused_into(&dest, &["--strict-headers"], &[&id, "change-id"]);
    assert!(!dest.exists(), "refused before DEST is created");
}

#[test]
fn gitlink_without_a_mapping_is_refused_naming_the_path() {
    let mut source = small_repo("policy-gitlink");
    let sub = "0123456789abcdef0123456789abcdef01234567";
    git(
        &source.path,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{sub},vendor/lib"),
        ],
    );
    git(&source.path, &["commit", "-q", "-m", "add submodule"]);
    let head = git(&source.path, &["rev-parse", "HEAD"]);
    let stderr = source.refused(&["vendor/lib", sub]);
    assert!(
        stderr.contains(&head),
        "names a commit pinning it: {stderr}"
    );
}
