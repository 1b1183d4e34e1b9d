//! git is the oracle. DEST is converted with `--git-compat-map`, so git
//! keeps working out and recording the SHA-1 name of every object made in
//! DEST; after new history is made there (commits, a merge, annotated,
//! lightweight and signed tags, a dual-signed commit, a merge of a signed
//! tag with its `mergetag`, an `encoding` commit, a hand-made commit with
//! a `mergetag` of an unsigned tag and no final newline, notes, a replace
//! ref, a branch deleted and one created), `export-sha1` must give every
//! object of DEST exactly git's SHA-1 name, write MIRROR so that it passes
//! `git fsck --strict`, and write nothing more on a second run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Scene, assert_fsck, clone_mirror, export_ok, refs, scene};
use crate::support::git::{git, git_bytes, git_output, git_with_input};
use crate::support::history::commit_file;
use crate::support::rehash::{rehash_export_map, rehash_verify};
use crate::support::repo_files::{all_objects, pack_files};

#[test]
fn every_object_made_in_dest_gets_the_sha1_name_git_gives_it() {
    let scene = scene("export-oracle", &["--git-compat-map"]);
    let mirror = clone_mirror(&scene, "mirror.git");
    let made = new_history(&scene);

    let summary = export_ok(&scene.dest, &mirror, &[]);
    assert!(summary.contains("exported: "), "{summary}");

    // Ask git for the SHA-1 of every object DEST stores, in one call.
    let map = rehash_export_map(&scene.dest);
    let by_sha256: BTreeMap<&str, &str> = map
        .iter()
        .map(|(sha1, (sha256, _))| (sha256.as_str(), sha1.as_str()))
        .collect();
    let stored: Vec<String> = all_objects(&scene.dest).into_keys().collect();
    let mut args = vec!["rev-parse", "--output-object-format=sha1"];
    args.extend(stored.iter().map(String::as_str));
    let git_says = git(&scene.dest, &args);
    let in_source = all_objects(&scene.source);
    let mut new_objects = 0;
    for (sha256, sha1) in stored.iter().zip(git_says.lines()) {
        assert_eq!(
            by_sha256.get(sha256.as_str()).copied(),
            Some(sha1),
            "the map's SHA-1 of {sha256} is not git's"
        );
        new_objects += usize::from(!in_source.contains_key(sha1));
    }
    assert!(new_objects >= 25, "only {new_objects} objects made in DEST");

    // MIRROR's refs are DEST's, in git's SHA-1 names.
    for name in [
        "refs/heads/main",
        "refs/heads/feature",
        "refs/heads/crafted",
        "refs/heads/fresh",
        "refs/heads/topic",
        "refs/tags/v2.0",
        "refs/tags/side-signed",
        "refs/tags/light",
        "refs/tags/light2",
        "refs/notes/commits",
    ] {
        assert_eq!(
            git(&mirror, &["rev-parse", name]),
            sha1_of(&scene.dest, name),
            "{name}"
        );
    }
    let replaced = sha1_of(&scene.dest, &made.replaced);
    assert_eq!(
        git(&mirror, &["rev-parse", &format!("refs/replace/{replaced}")]),
        sha1_of(&scene.dest, &made.replacement)
    );
    let mirror_refs = refs(&mirror);
    assert!(!mirror_refs.contains("refs/heads/old "), "{mirror_refs}");
    assert_fsck(&mirror);

    // The signed objects keep their signatures, in the SHA-1 form too.
    let signed = git(&mirror, &["cat-file", "-p", "refs/heads/signed"]);
    assert!(
        signed.contains("\ngpgsig ") && signed.contains("\ngpgsig-sha256 "),
        "{signed}"
    );
    let verify = git_output(
        &mirror,
        &[
            "-c",
            &format!(
                "gpg.ssh.allowedSignersFile={}",
                made.allowed_signers.display()
            ),
            "verify-commit",
            "refs/heads/signed",
        ],
    );
    assert!(
        verify.status.success(),
        "the dual-signed commit does not verify in MIRROR: {}",
        String::from_utf8_lossy(&verify.stderr)
    );
    let merge = git(&mirror, &["cat-file", "-p", "refs/heads/main"]);
    let signed_tag = sha1_of(&scene.dest, "refs/tags/side-signed^{commit}");
    assert!(
        merge.contains(&format!("mergetag object {signed_tag}")),
        "{merge}"
    );
    let crafted = git_bytes(&mirror, &["cat-file", "commit", "refs/heads/crafted"]);
    assert!(crafted.ends_with(b"no final newline"), "{crafted:?}");

    // A second run has nothing to write.
    let packs = pack_files(&mirror);
    let rows = map.len();
    let again = export_ok(&scene.dest, &mirror, &[]);
    assert!(
        again.contains(
            "exported: nothing new to write, 0 new pairs recorded, 0 refs created, 0 moved, 0 deleted"
        ),
        "{again}"
    );
    assert_eq!(pack_files(&mirror), packs);
    assert_eq!(rehash_export_map(&scene.dest).len(), rows);
    // And DEST, with its new pairs, verifies.
    let verified = rehash_verify(&scene.dest, None);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
}

/// git's SHA-1 name of `rev` in DEST (compat mode).
fn sha1_of(dest: &Path, rev: &str) -> String {
    git(dest, &["rev-parse", "--output-object-format=sha1", rev])
}

/// What `new_history` made that the test looks up.
struct Made {
    /// The commit a replace ref replaces, and its replacement.
    replaced: String,
    replacement: String,
    /// ssh allowed-signers file of the signing key.
    allowed_signers: PathBuf,
}

/// New history in DEST, made by git in DEST's work tree.
fn new_history(scene: &Scene) -> Made {
    let work = &scene.work;
    commit_file(
        work,
        "a.txt",
        "changed after the move\n",
        "first SHA-256 commit",
    );
    git(work, &["checkout", "-q", "-b", "feature"]);
    commit_file(work, "feature.txt", "one\n", "feature one");
    commit_file(work, "feature.txt", "one\ntwo\n", "feature two");
    git(work, &["checkout", "-q", "main"]);
    commit_file(work, "main.txt", "main\n", "main goes on");
    git(work, &["merge", "-q", "--no-ff", "--no-edit", "feature"]);
    git(work, &["tag", "-a", "-m", "release 2.0", "v2.0"]);
    // A commit whose message is in Latin-1, as its `encoding` header says.
    let message = scene.root.join("latin1.txt");
    std::fs::write(&message, b"caf\xe9 au lait\n").unwrap();
    git(
        work,
        &[
            "-c",
            "i18n.commitEncoding=ISO-8859-1",
            "commit",
            "-q",
            "--allow-empty",
            "-F",
            message.to_str().unwrap(),
        ],
    );

    // Signed with an SSH key: git in compat mode signs both forms.
    let key = scene.root.join("key");
    let keygen = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f"])
        .arg(&key)
        .output()
        .expect("ssh-keygen");
    assert!(keygen.status.success());
    let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    let allowed_signers = scene.root.join("allowed_signers");
    std::fs::write(
        &allowed_signers,
        format!("committer@example.invalid namespaces=\"git\" {public}"),
    )
    .unwrap();
    let signing = [
        "-c".to_string(),
        "gpg.format=ssh".to_string(),
        "-c".to_string(),
        format!("user.signingKey={}", key.display()),
    ];
    let signed = |args: &[&str]| {
        let mut all: Vec<&str> = signing.iter().map(String::as_str).collect();
        all.extend(args);
        git(work, &all);
    };
    std::fs::write(work.join("signed.txt"), "signed\n").unwrap();
    git(work, &["add", "signed.txt"]);
    signed(&["commit", "-q", "-S", "-m", "dual-signed commit"]);
    git(work, &["branch", "signed"]);
    git(work, &["checkout", "-q", "-b", "side", "main~2"]);
    commit_file(work, "side.txt", "side\n", "side work");
    signed(&["tag", "-s", "-m", "signed side", "side-signed"]);
    git(work, &["checkout", "-q", "main"]);
    signed(&["merge", "-q", "--no-ff", "-S", "--no-edit", "side-signed"]);

    // By hand: a mergetag of an unsigned tag (git writes those only for
    // signed ones) and a message without a final newline.
    let dest = &scene.dest;
    let tree = git(dest, &["rev-parse", "main^{tree}"]);
    let head = git(dest, &["rev-parse", "main"]);
    let tag = String::from_utf8(git_bytes(dest, &["cat-file", "tag", "v2.0"])).unwrap();
    let folded: String = tag.lines().map(|l| format!(" {l}\n")).collect();
    let who = "C O Mitter <committer@example.invalid> 1700000000 +0000";
    let body = format!(
        "tree {tree}\nparent {head}\nauthor {who}\ncommitter {who}\nmergetag{folded}\nno final newline"
    );
    let crafted = String::from_utf8(git_with_input(
        dest,
        &["hash-object", "-t", "commit", "-w", "--stdin"],
        body.as_bytes(),
    ))
    .unwrap();
    git(dest, &["update-ref", "refs/heads/crafted", crafted.trim()]);

    git(work, &["notes", "add", "-m", "a note made in DEST", "main"]);
    let replaced = git(dest, &["rev-parse", "main~3"]);
    let replacement = git(dest, &["rev-parse", "feature~1"]);
    git(dest, &["replace", &replaced, &replacement]);
    git(dest, &["tag", "light2", "main~1"]);
    git(dest, &["branch", "fresh", "main~2"]);
    git(dest, &["branch", "-D", "old"]);
    Made {
        replaced,
        replacement,
        allowed_signers,
    }
}
