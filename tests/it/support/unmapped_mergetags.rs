//! A SOURCE whose merges carry mergetags naming commits it does not have:
//! history git accepts (nothing in git checks what a mergetag names) and
//! linux.git holds, for which no exact SHA-256 translation exists.

use super::fixture::{TrickyRepo, default_repo};
use super::git::{TEST_DATE, git, git_bytes, git_output, git_with_input};
use super::watched_source::{Source, bare_repo};

/// The repository and what it holds.
pub struct MergetagSource {
    pub source: Source,
    /// The fixture whose signed tags the mergetags embed (its keyring
    /// verifies their signatures).
    pub fixture: &'static TrickyRepo,
    /// The commits whose mergetags name absent commits, with each such
    /// target, sorted by commit.
    pub unmapped: Vec<(String, String)>,
    /// The mergetag fields (folded, as stored) that name absent commits.
    pub kept_fields: Vec<Vec<u8>>,
    /// A commit SOURCE has, named by the other mergetag of the second merge.
    pub present_target: String,
}

/// `mergetag` and the tag's lines, each after one space (git's
/// `strbuf_add_lines`).
pub fn mergetag_field(tag: &[u8]) -> Vec<u8> {
    let mut field = b"mergetag".to_vec();
    for line in tag.split_inclusive(|&b| b == b'\n') {
        field.push(b' ');
        field.extend_from_slice(line);
    }
    field
}

/// Writes a commit with `parents` and `mergetags` (folded fields) through
/// `git hash-object`, which checks it as git checks what it stores.
fn commit_with_mergetags(
    git_dir: &Source,
    tree: &str,
    parents: &[&str],
    fields: &[&[u8]],
) -> String {
    let mut body = format!("tree {tree}\n").into_bytes();
    for p in parents {
        body.extend_from_slice(format!("parent {p}\n").as_bytes());
    }
    for who in [
        "author A U Thor <author@example.invalid>",
        "committer C O Mitter <committer@example.invalid>",
    ] {
        body.extend_from_slice(format!("{who} {TEST_DATE}\n").as_bytes());
    }
    for field in fields {
        body.extend_from_slice(field);
    }
    body.extend_from_slice(b"\nMerge tags\n");
    let out = git_with_input(
        &git_dir.path,
        &["hash-object", "-t", "commit", "-w", "--stdin"],
        &body,
    );
    String::from_utf8(out).unwrap().trim().to_string()
}

/// A bare repository, its `main` ending in two merges: the first's
/// mergetag embeds the fixture's signed tag `side-signed`, the second's
/// embeds a tag of a commit SOURCE has and the signed tag `v2.0-signed`.
/// The tagged commits of both signed tags are the fixture's, not SOURCE's.
/// `git fsck --strict` accepts it.
pub fn mergetag_source(label: &str) -> MergetagSource {
    let fixture = default_repo();
    let source = bare_repo(label);
    let tree = String::from_utf8(git_with_input(&source.path, &["mktree"], b"")).unwrap();
    let tree = tree.trim();
    let base = git(&source.path, &["commit-tree", tree, "-m", "base"]);
    let other = git(&source.path, &["commit-tree", tree, "-m", "other"]);
    let present_tag = format!(
        "object {base}\ntype commit\ntag here\ntagger C O Mitter <committer@example.invalid> {TEST_DATE}\n\nin SOURCE\n"
    );
    let signed = |name: &str| {
        let tag = git_bytes(&fixture.repo_path, &["cat-file", "tag", name]);
        let target = fixture.rev(&format!("{name}^{{commit}}"));
        (mergetag_field(&tag), target)
    };
    let (first, first_target) = signed("side-signed");
    let (second, second_target) = signed("v2.0-signed");
    let m1 = commit_with_mergetags(&source, tree, &[&base, &other], &[&first]);
    let present = mergetag_field(present_tag.as_bytes());
    let m2 = commit_with_mergetags(&source, tree, &[&m1, &base], &[&present, &second]);
    git(&source.path, &["update-ref", "refs/heads/main", &m2]);
    git(&source.path, &["symbolic-ref", "HEAD", "refs/heads/main"]);
    let fsck = git_output(&source.path, &["fsck", "--strict"]);
    assert!(
        fsck.status.success(),
        "git fsck --strict: {}",
        String::from_utf8_lossy(&fsck.stderr)
    );
    let mut unmapped = vec![(m1, first_target), (m2, second_target)];
    unmapped.sort();
    MergetagSource {
        source,
        fixture,
        unmapped,
        kept_fields: vec![first, second],
        present_target: base,
    }
}
