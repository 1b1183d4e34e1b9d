//! Both directions undo each other: SHA-1 -> SHA-256 -> SHA-1 gives the
//! original objects and refs back, and SHA-256 -> SHA-1 -> SHA-256 too.
//! The middle repository is a git-rehash DEST, whose map the second
//! conversion follows, so each object gets back the name it had, even the
//! tag whose translation alone does not give its bytes back.

use std::path::Path;

use crate::support::converted::default_conversion;
use crate::support::fixture::default_repo;
use crate::support::git::git;
use crate::support::rehash::{rehash_convert_ok, rehash_verify_ok};
use crate::support::repo_files::all_objects;
use crate::support::reversed::reversed_fixture;
use crate::support::scratch::scratch_dir;
use crate::support::sha256_fixture::sha256_repo;

/// What a round trip must give back: every object (name and type) and
/// every ref (name, value, peeled value), and HEAD.
fn assert_same_repository(back: &Path, original: &Path) {
    assert_eq!(
        all_objects(back),
        all_objects(original),
        "object sets differ"
    );
    let refs = |repo: &Path| {
        git(
            repo,
            &[
                "for-each-ref",
                "--format=%(refname) %(objectname) %(*objectname)",
            ],
        )
    };
    assert_eq!(refs(back), refs(original), "refs differ");
    assert_eq!(
        git(back, &["symbolic-ref", "HEAD"]),
        git(original, &["symbolic-ref", "HEAD"])
    );
}

#[test]
fn sha1_to_sha256_to_sha1_gives_the_original() {
    let (forward, repo) = (default_conversion(), default_repo());
    // The fixture's crafted tag whose signature lacks its final LF is
    // among the objects: translation alone would not give it back.
    let crafted = repo.rev("refs/tags/sig-no-final-newline");
    let back = scratch_dir("round-trip-sha1").join("back.git");
    rehash_convert_ok(&forward.dest, &back, &["--quiet"]);
    assert_eq!(git(&back, &["rev-parse", "--show-object-format"]), "sha1");
    assert_same_repository(&back, &repo.repo_path);
    assert_eq!(git(&back, &["cat-file", "-t", &crafted]), "tag");
    rehash_verify_ok(&back, &forward.dest);
}

#[test]
fn sha256_to_sha1_to_sha256_gives_the_original() {
    let (reversed, repo) = (reversed_fixture(), sha256_repo());
    // The gitlink's pair comes from the middle DEST's own record.
    let again = scratch_dir("round-trip-sha256").join("again.git");
    rehash_convert_ok(&reversed.dest, &again, &["--quiet"]);
    assert_eq!(
        git(&again, &["rev-parse", "--show-object-format"]),
        "sha256"
    );
    assert_same_repository(&again, &repo.repo_path);
    rehash_verify_ok(&again, &reversed.dest);
}
