//! The SHA-1 repository a SHA-256 SOURCE converts into: git accepts it as
//! strictly as it accepts SOURCE, `verify` finds nothing, it serves with
//! its bitmap and commit-graph, it clones, its refs and reflogs are
//! SOURCE's translated, and signatures over the SHA-1 form verify.

use std::collections::BTreeSet;

use crate::support::git::{git, git_bytes, git_output};
use crate::support::id_translation::translate_sha256_bytes;
use crate::support::rehash::rehash_verify_ok;
use crate::support::reversed::reversed_fixture;
use crate::support::scratch::scratch_dir;
use crate::support::serving::assert_same_as_read_from_the_pack;
use crate::support::sha256_fixture::sha256_repo;

/// `git fsck --strict`'s findings, sorted, with SOURCE's ids in SHA-1.
fn fsck_findings(repo: &std::path::Path, to_sha1: bool) -> BTreeSet<String> {
    let out = git_output(
        repo,
        &["fsck", "--strict", "--no-dangling", "--no-progress"],
    );
    let text = [out.stdout, out.stderr].concat();
    let text = if to_sha1 {
        translate_sha256_bytes(&reversed_fixture().map, &text)
    } else {
        text
    };
    String::from_utf8_lossy(&text)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn git_accepts_it_as_it_accepts_source() {
    let (reversed, repo) = (reversed_fixture(), sha256_repo());
    let dest = &reversed.dest;
    assert_eq!(git(dest, &["rev-parse", "--show-object-format"]), "sha1");
    assert_eq!(
        fsck_findings(dest, false),
        fsck_findings(&repo.repo_path, true),
        "fsck --strict finds what it finds in SOURCE"
    );
    let report = rehash_verify_ok(dest, &repo.repo_path);
    assert!(report.contains(" 0 problem(s)"), "{report}");
    // One pack, served with its bitmap and commit-graph.
    let count = |repo: &std::path::Path, extra: &[&str]| {
        let args = [
            &["--no-replace-objects", "rev-list", "--count", "--all"],
            extra,
        ]
        .concat();
        git(repo, &args)
    };
    assert_eq!(
        count(dest, &["--use-bitmap-index"]),
        count(&repo.repo_path, &[])
    );
    assert_same_as_read_from_the_pack(dest, "reverse-fixture");
    let clone = scratch_dir("reverse-clone").join("clone");
    let out = git_output(
        &scratch_dir("reverse-clone-cwd"),
        &[
            "clone",
            "-q",
            "--no-local",
            &dest.display().to_string(),
            &clone.display().to_string(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        git(&clone, &["rev-parse", "HEAD"]),
        git(dest, &["rev-parse", "HEAD"])
    );
    // Its tags came along (its objects' findings are SOURCE's, above).
    let tags = |repo: &std::path::Path| git(repo, &["for-each-ref", "refs/tags"]);
    assert_eq!(tags(&clone), tags(dest));
}

#[test]
fn refs_and_reflogs_are_sources_named_in_sha1() {
    let (reversed, repo) = (reversed_fixture(), sha256_repo());
    let map = &reversed.map;
    for args in [
        vec![
            "for-each-ref",
            "--format=%(refname) %(objectname) %(objecttype) %(*objectname)",
        ],
        vec!["reflog", "show", "--format=%H %gs", "main"],
        vec!["reflog", "show", "--format=%H %gs", "amended"],
        vec![
            "--no-replace-objects",
            "log",
            "--all",
            "--format=%H %P %T %an %at %s",
        ],
    ] {
        let source = translate_sha256_bytes(map, &git_bytes(&repo.repo_path, &args));
        let dest = git_bytes(&reversed.dest, &args);
        assert!(
            source == dest,
            "git {args:?}:\n{}\n---\n{}",
            String::from_utf8_lossy(&source),
            String::from_utf8_lossy(&dest)
        );
    }
    assert_eq!(
        git(&reversed.dest, &["symbolic-ref", "HEAD"]),
        "refs/heads/main"
    );
    // The gitlink pins the submodule's commit by the name its own
    // conversion gave it.
    let sub_head = git(&reversed.sub_dest, &["rev-parse", "HEAD"]);
    assert_eq!(
        git(&reversed.dest, &["ls-tree", "main", "sub"]),
        format!("160000 commit {sub_head}\tsub")
    );
}

#[test]
fn signatures_over_the_sha1_form_verify() {
    let (reversed, repo) = (reversed_fixture(), sha256_repo());
    let dest = &reversed.dest;
    let sha1 = |rev: &str| reversed.sha1_of(&repo.rev(rev));
    // Signed in compat mode: git signed the SHA-1 form too.
    for commit in [":/GPG-signed in compat mode", ":/SSH-signed in compat mode"] {
        repo.assert_verifies(dest, "verify-commit", &sha1(commit));
    }
    // The tag's SHA-1 signature is the in-body one of its SHA-1 form; the
    // SHA-256 one waits in a `gpgsig-sha256` field.
    let tag = sha1("refs/tags/v0.1-dual");
    repo.assert_verifies(dest, "verify-tag", &tag);
    let body = git(dest, &["cat-file", "tag", &tag]);
    assert!(
        body.contains("\ngpgsig-sha256 -----BEGIN PGP SIGNATURE-----"),
        "{body}"
    );
    // Signed over the SHA-256 form only: the signature stays, in its field.
    let only256 = git(
        dest,
        &["cat-file", "commit", &sha1(":/SSH-signed in SHA-256 only")],
    );
    assert!(only256.contains("\ngpgsig-sha256 -----BEGIN SSH SIGNATURE-----"));
    let tag256 = git(dest, &["cat-file", "tag", &sha1("refs/tags/ssh-only-256")]);
    assert!(
        tag256.contains("\ngpgsig-sha256 -----BEGIN SSH SIGNATURE-----"),
        "{tag256}"
    );
}
