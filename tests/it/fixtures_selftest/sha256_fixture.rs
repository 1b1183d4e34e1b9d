//! The SHA-256 fixture holds what its header promises, and git names every
//! object of it in SHA-1 but the one it refuses to convert.

use super::header_of;
use crate::support::git::{git, git_bytes};
use crate::support::repo_files::{OBJ_OFS_DELTA, OBJ_REF_DELTA, pack_entries, pack_files};
use crate::support::sha256_fixture::{sha256_fixture_oracle, sha256_repo};

#[test]
fn git_names_every_object_in_sha1_but_the_unknown_header_commit() {
    let repo = sha256_repo();
    let oracle = sha256_fixture_oracle();
    let objects = crate::support::repo_files::all_objects(&repo.repo_path);
    let unnamed: Vec<&String> = objects
        .keys()
        .filter(|id| !oracle.contains_key(*id))
        .collect();
    assert_eq!(unnamed, [&repo.unknown_header]);
    assert!(objects.len() > 90, "{} objects", objects.len());
    // The pairs git knows without its map.
    let empty_tree = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321";
    assert_eq!(
        oracle[empty_tree].0,
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    );
}

#[test]
fn signatures_mergetags_and_storage_are_as_promised() {
    let repo = sha256_repo();
    let body = |rev: &str| {
        let id = repo.rev(rev);
        let t = git(&repo.repo_path, &["cat-file", "-t", &id]);
        git_bytes(&repo.repo_path, &["cat-file", &t, &id])
    };
    let header = |rev: &str| header_of(&body(rev));
    let dual = header(":/GPG-signed in compat mode");
    assert!(
        dual.contains("\ngpgsig -----BEGIN PGP") && dual.contains("\ngpgsig-sha256 -----BEGIN PGP")
    );
    let ssh_dual = header(":/SSH-signed in compat mode");
    assert!(
        ssh_dual.contains("\ngpgsig -----BEGIN SSH")
            && ssh_dual.contains("\ngpgsig-sha256 -----BEGIN SSH")
    );
    let ssh_only = header(":/SSH-signed in SHA-256 only");
    assert!(!ssh_only.contains("\ngpgsig ") && ssh_only.contains("\ngpgsig-sha256 -----BEGIN SSH"));
    // A SHA-256 tag signed in compat mode: the SHA-1 signature in a header.
    assert!(header("refs/tags/v0.1-dual").contains("\ngpgsig -----BEGIN PGP"));
    assert!(
        String::from_utf8_lossy(&body("refs/tags/ssh-only-256"))
            .contains("-----BEGIN SSH SIGNATURE")
    );
    assert!(header(":/Merge tag 'side-signed'").contains("\nmergetag object "));
    assert!(header(":/Merge tag 'side2-outer'").contains("\nmergetag object "));
    assert!(header(":/latin-1").contains("\nencoding ISO-8859-1"));
    assert!(header(&repo.unknown_header).contains("\nchange-id "));
    let gitlink = git(&repo.repo_path, &["ls-tree", "main", "sub"]);
    let sub_head = git(&repo.sub_path, &["rev-parse", "HEAD"]);
    assert_eq!(gitlink, format!("160000 commit {sub_head}\tsub"));
    assert!(repo.root.join("gnupg").is_dir());
    assert_eq!(
        git(&repo.repo_path, &["rev-parse", "--show-object-format"]),
        "sha256"
    );
    // Both kinds of delta, and loose objects.
    let packs = pack_files(&repo.repo_path.join(".git"));
    assert_eq!(packs.len(), 2);
    let kinds: Vec<u8> = packs
        .iter()
        .flat_map(|p| pack_entries(p, "sha256"))
        .map(|e| e.kind)
        .collect();
    assert!(kinds.contains(&OBJ_OFS_DELTA) && kinds.contains(&OBJ_REF_DELTA));
    // Signatures verify in SOURCE, SSH and GPG alike.
    repo.assert_verifies(
        &repo.repo_path,
        "verify-commit",
        ":/SSH-signed in SHA-256 only",
    );
    repo.assert_verifies(
        &repo.repo_path,
        "verify-commit",
        ":/GPG-signed in compat mode",
    );
    repo.assert_verifies(&repo.repo_path, "verify-tag", "v0.1-dual");
    repo.assert_verifies(&repo.repo_path, "verify-tag", "ssh-only-256");
}
