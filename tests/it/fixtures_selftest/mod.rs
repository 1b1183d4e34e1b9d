//! Self-tests of the test infrastructure: the tools it needs, the fixture
//! builder (tests/fixtures/make-tricky-repo.sh), the git-driven oracle
//! (tests/fixtures/oracle.sh), and the "SOURCE unchanged" fingerprint.

mod fixture;
mod oracle;
mod sha256_fixture;
mod tools;
mod tree_checksums;

use crate::support::fixture::TrickyRepo;
use crate::support::git::{git, git_bytes};

/// The raw body of the object `rev` names in the fixture repository.
fn raw_object(repo: &TrickyRepo, rev: &str) -> Vec<u8> {
    let id = repo.rev(rev);
    let t = git(&repo.repo_path, &["cat-file", "-t", &id]);
    git_bytes(&repo.repo_path, &["cat-file", &t, &id])
}

/// The header lines of a commit or tag body (up to the first blank line).
fn header_of(body: &[u8]) -> String {
    let end = body
        .windows(2)
        .position(|w| w == b"\n\n")
        .unwrap_or(body.len());
    String::from_utf8_lossy(&body[..end]).into_owned()
}
