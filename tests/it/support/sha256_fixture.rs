//! The fixture of the reverse direction, `tests/fixtures/make-sha256-repo.sh`:
//! a SHA-256 repository git made with `extensions.compatObjectFormat = sha1`
//! from its first commit, built once per test process and shared
//! (read-only), and git's own SHA-1 name of each of its objects (the
//! oracle), asked with `git rev-parse --output-object-format=sha1`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::git::{expect_success, git, git_command, isolate};
use super::repo_files::all_objects;
use super::scratch::scratch_root;

/// `tests/fixtures/make-sha256-repo.sh`
pub const SHA256_FIXTURE_SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/make-sha256-repo.sh"
);

/// sha256 -> (sha1, type): git's SHA-1 name of each object it can name.
pub type Sha1Oracle = BTreeMap<String, (String, String)>;

/// A built SHA-256 fixture (see the header of make-sha256-repo.sh).
#[derive(Clone, Debug)]
pub struct Sha256Repo {
    pub root: PathBuf,
    /// `root/repo`: the fixture (non-bare, `main` checked out).
    pub repo_path: PathBuf,
    /// `root/sub`: the SHA-256 repository the gitlink pins.
    pub sub_path: PathBuf,
    /// `root/gnupg`: the GPG public keyring (GNUPGHOME for `git verify-*`).
    pub gnupg_home: PathBuf,
    /// `root/ssh/allowed_signers`: the SSH key's allowed signers file.
    pub allowed_signers: PathBuf,
    /// The commit with an unknown header, which git could not name in SHA-1.
    pub unknown_header: String,
}

impl Sha256Repo {
    /// `rev-parse` of `rev` in the fixture repository.
    pub fn rev(&self, rev: &str) -> String {
        git(
            &self.repo_path,
            &["rev-parse", "--verify", "--end-of-options", rev],
        )
    }

    /// `git verify-commit` / `verify-tag` (`verb`) of `id` in `repo` with
    /// the fixture's keys; panics unless it passes.
    pub fn assert_verifies(&self, repo: &Path, verb: &str, id: &str) {
        let out = git_command(repo)
            .env("GNUPGHOME", &self.gnupg_home)
            .arg("-c")
            .arg(format!(
                "gpg.ssh.allowedSignersFile={}",
                self.allowed_signers.display()
            ))
            .args([verb, id])
            .output()
            .expect("run git verify");
        assert!(
            out.status.success(),
            "{verb} {id} in {}: {}",
            repo.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The fixture, built once per test process. Read-only: copy it to change it.
pub fn sha256_repo() -> &'static Sha256Repo {
    static BUILT: OnceLock<Sha256Repo> = OnceLock::new();
    BUILT.get_or_init(|| build(&scratch_root().join("fixture-sha256")))
}

fn build(out: &Path) -> Sha256Repo {
    let mut cmd = Command::new("bash");
    isolate(&mut cmd);
    let output = cmd
        .arg(SHA256_FIXTURE_SCRIPT)
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash: {e}"));
    expect_success(
        &format!("{SHA256_FIXTURE_SCRIPT} {}", out.display()),
        output,
    );
    let root = fs::canonicalize(out).expect("fixture dir");
    let unknown_header = fs::read_to_string(root.join("unknown-header.txt"))
        .expect("read unknown-header.txt")
        .trim()
        .to_owned();
    Sha256Repo {
        repo_path: root.join("repo"),
        sub_path: root.join("sub"),
        gnupg_home: root.join("gnupg"),
        allowed_signers: root.join("ssh/allowed_signers"),
        unknown_header,
        root,
    }
}

/// git's SHA-1 name of every object of `repo` (a SHA-256 repository with
/// `compatObjectFormat = sha1`) that git can name; the others are left out.
pub fn sha1_oracle(repo: &Path) -> Sha1Oracle {
    let objects = all_objects(repo);
    let ids: Vec<&String> = objects.keys().collect();
    let mut oracle = Sha1Oracle::new();
    for batch in ids.chunks(256) {
        // One line an argument, in order; an id git cannot map is echoed
        // (64 digits) and left out.
        let mut args = vec!["rev-parse", "--output-object-format=sha1"];
        args.extend(batch.iter().map(|s| s.as_str()));
        let out = git(repo, &args);
        for (id, line) in batch.iter().zip(out.lines()) {
            if line.len() == 40 {
                oracle.insert((*id).clone(), (line.to_owned(), objects[*id].clone()));
            }
        }
    }
    oracle
}

/// [`sha1_oracle`] of the shared fixture, computed once.
pub fn sha256_fixture_oracle() -> &'static Sha1Oracle {
    static ORACLE: OnceLock<Sha1Oracle> = OnceLock::new();
    ORACLE.get_or_init(|| sha1_oracle(&sha256_repo().repo_path))
}
