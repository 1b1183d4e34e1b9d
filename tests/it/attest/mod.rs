//! Signed statements of a conversion (`git-rehash attest`, `convert
//! --attest`, `export-sha1 --attest`, `verify --attestation`), with real
//! git signing and checking through an SSH key made by ssh-keygen in the
//! test: a statement git verifies and git carries (`signed.rs`), every
//! tampering caught and named (`tampering.rs`), two independent
//! conversions stating the same (`reproducible.rs`), and statements
//! linked across conversions (`chain.rs`).

mod chain;
mod reproducible;
mod signed;
mod tampering;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::git::{git, git_bytes, git_command};
use crate::support::history::history_with_topic;
use crate::support::process::stdout_text;
use crate::support::rehash::{rehash_command, run_ok};
use crate::support::scratch::scratch_dir;

/// An SSH signing key, and a global git config that signs with it and
/// trusts only the keys of its allowed signers file.
pub struct Signer {
    pub config: PathBuf,
    pub allowed_signers: PathBuf,
}

impl Signer {
    /// A new key in `dir`, trusted by its own allowed signers file.
    pub fn new(dir: &Path) -> Signer {
        std::fs::create_dir_all(dir).unwrap();
        let key = dir.join("key");
        let out = Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", "attest-test", "-f"])
            .arg(&key)
            .output()
            .expect("run ssh-keygen");
        assert!(out.status.success(), "ssh-keygen: {out:?}");
        let public = std::fs::read_to_string(dir.join("key.pub")).unwrap();
        let allowed_signers = dir.join("allowed_signers");
        std::fs::write(
            &allowed_signers,
            format!("committer@example.invalid {public}"),
        )
        .unwrap();
        let config = dir.join("gitconfig");
        std::fs::write(
            &config,
            format!(
                "[user]\n\tsigningKey = {}\n[gpg]\n\tformat = ssh\n[gpg \"ssh\"]\n\tallowedSignersFile = {}\n",
                dir.join("key.pub").display(),
                allowed_signers.display()
            ),
        )
        .unwrap();
        Signer {
            config,
            allowed_signers,
        }
    }

    /// `cmd` (git or git-rehash, isolated) with this signing setup.
    pub fn apply<'a>(&self, cmd: &'a mut Command) -> &'a mut Command {
        cmd.env("GIT_CONFIG_GLOBAL", &self.config)
    }

    /// `git-rehash args...` with this signing setup.
    pub fn rehash(&self, args: &[&str]) -> Command {
        let mut cmd = rehash_command();
        self.apply(&mut cmd).args(args);
        cmd
    }

    /// `git -C dir args...` with this signing setup; must succeed.
    pub fn git(&self, dir: &Path, args: &[&str]) -> Output {
        run_ok(self.apply(&mut git_command(dir)).args(args))
    }
}

/// A scene: a SHA-1 SOURCE worth deltifying (branches, tags) and a signer.
pub struct Scene {
    pub root: PathBuf,
    pub source: PathBuf,
    pub signer: Signer,
}

pub fn scene(label: &str) -> Scene {
    let root = scratch_dir(label);
    let source = root.join("src");
    history_with_topic(&source);
    git(&source, &["checkout", "-q", "main"]);
    git(&source, &["tag", "light", "HEAD~5"]);
    let signer = Signer::new(&root.join("signer"));
    Scene {
        root,
        source,
        signer,
    }
}

impl Scene {
    /// `convert --quiet --attest SOURCE <root>/<name>` with `extra`; DEST.
    pub fn convert_attested(&self, name: &str, extra: &[&str]) -> PathBuf {
        let dest = self.root.join(name);
        let mut cmd = self.signer.rehash(&["convert", "--quiet", "--attest"]);
        cmd.args(extra).arg(&self.source).arg(&dest);
        run_ok(&mut cmd);
        dest
    }

    /// `verify --quiet --attestation DEST [extra]`, whatever its outcome.
    pub fn verify_attestation(&self, dest: &Path, extra: &[&str]) -> Output {
        let mut cmd = self.signer.rehash(&["verify", "--quiet", "--attestation"]);
        cmd.arg(dest).args(extra);
        cmd.output().expect("run git-rehash verify")
    }

    /// [`Scene::verify_attestation`] that must pass; its report.
    pub fn verify_attestation_ok(&self, dest: &Path, extra: &[&str]) -> String {
        let out = self.verify_attestation(dest, extra);
        let text = stdout_text(&out);
        assert!(out.status.success(), "verify --attestation failed:\n{text}");
        assert!(text.contains("every signature verifies"), "{text}");
        text
    }
}

/// The statement (JSON) of the tag `rev` names in `repo`, signature cut off.
pub fn statement_of(repo: &Path, rev: &str) -> serde_json::Value {
    let body = tag_body(repo, rev);
    let message = &body[body.find("\n\n").expect("a tag message") + 2..];
    let json = &message[..message
        .find("-----BEGIN SSH SIGNATURE-----")
        .expect("signed")];
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}:\n{json}"))
}

/// The bytes of the tag `rev` names in `repo`.
pub fn tag_body(repo: &Path, rev: &str) -> String {
    String::from_utf8(git_bytes(repo, &["cat-file", "tag", rev])).unwrap()
}

/// The tag `refs/rehash/attestation` names in `repo`.
pub fn attestation(repo: &Path) -> String {
    git(repo, &["rev-parse", "refs/rehash/attestation"])
}

/// Asserts `out` is a failed verify naming every one of `needles`.
pub fn assert_fails_naming(out: &Output, needles: &[&str]) {
    let text = stdout_text(out);
    assert_eq!(out.status.code(), Some(1), "verify should fail:\n{text}");
    assert!(text.contains("FAILED"), "no FAILED summary:\n{text}");
    for needle in needles {
        assert!(text.contains(needle), "does not name {needle}:\n{text}");
    }
}

/// Runs `cmd` with the test hook that aborts it at the kill point `spec`,
/// and checks that it was killed there.
pub fn run_killed_at(mut cmd: Command, spec: &str) {
    let out = cmd.env("GIT_REHASH_TEST_KILL_AT", spec).output().unwrap();
    assert!(
        !out.status.success() && out.status.code().is_none(),
        "the kill point {spec} did not fire: {out:?}"
    );
}
