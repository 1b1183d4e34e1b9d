//! Every SHA-1 name of a SHA-256 -> SHA-1 conversion equals the one git
//! gives the object in compat mode (`rev-parse --output-object-format=sha1`);
//! the commit git refuses to name is checked by deriving its SHA-1 form.

use std::collections::BTreeMap;

use crate::support::git::{git_bytes, git_with_input};
use crate::support::repo_files::all_objects;
use crate::support::reversed::reversed_fixture;
use crate::support::sha256_fixture::{sha256_fixture_oracle, sha256_repo};

#[test]
fn every_object_has_the_sha1_name_git_gives_it() {
    let reversed = reversed_fixture();
    let repo = sha256_repo();
    let ours: BTreeMap<&String, (&String, &String)> = reversed
        .map
        .iter()
        .map(|(sha1, (sha256, kind))| (sha256, (sha1, kind)))
        .collect();
    assert_eq!(
        ours.len(),
        all_objects(&repo.repo_path).len(),
        "one row per object SOURCE stores"
    );
    let oracle = sha256_fixture_oracle();
    assert_eq!(oracle.len() + 1, ours.len(), "git names all but one");
    for (sha256, (sha1, kind)) in oracle {
        assert_eq!(ours.get(sha256), Some(&(sha1, kind)), "object {sha256}");
    }
    // DEST stores exactly the objects its map names.
    let stored: BTreeMap<String, String> = reversed
        .map
        .iter()
        .map(|(sha1, (_, kind))| (sha1.clone(), kind.clone()))
        .collect();
    assert_eq!(all_objects(&reversed.dest), stored);
}

#[test]
fn the_commit_git_cannot_name_gets_its_sha1_form() {
    let (reversed, repo) = (reversed_fixture(), sha256_repo());
    let oracle = sha256_fixture_oracle();
    let body = git_bytes(
        &repo.repo_path,
        &["cat-file", "commit", &repo.unknown_header],
    );
    let text = String::from_utf8(body).expect("a text commit");
    // Its SHA-1 form: the tree and parent named as git names them, every
    // other byte, the unknown header included, as it is.
    let (header, message) = text.split_once("\n\n").expect("a message");
    let header: Vec<String> = header
        .lines()
        .map(|line| match line.split_once(' ') {
            Some((field @ ("tree" | "parent"), id)) => format!("{field} {}", oracle[id].0),
            _ => line.to_owned(),
        })
        .collect();
    assert!(header.iter().any(|l| l.starts_with("change-id ")));
    let sha1_form = format!("{}\n\n{message}", header.join("\n"));
    let named = String::from_utf8(git_with_input(
        &reversed.dest,
        &["hash-object", "--literally", "-t", "commit", "--stdin"],
        sha1_form.as_bytes(),
    ))
    .unwrap();
    let sha1 = reversed.sha1_of(&repo.unknown_header);
    assert_eq!(sha1, named.trim());
    assert!(git_bytes(&reversed.dest, &["cat-file", "commit", &sha1]) == sha1_form.as_bytes());
}
