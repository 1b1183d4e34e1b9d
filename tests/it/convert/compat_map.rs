//! `--git-compat-map`: git itself answers SHA-1 <-> SHA-256 questions in
//! DEST (`extensions.compatObjectFormat = sha1`).

use crate::support::fixture::default_repo;
use crate::support::git::git;
use crate::support::rehash::{rehash_convert_ok, rehash_export_map, rehash_verify_ok};
use crate::support::scratch::scratch_dir;

#[test]
fn git_compat_map_lets_git_answer_for_every_object() {
    let repo = default_repo();
    let dest = scratch_dir("interop-compat").join("dest.git");
    let out = rehash_convert_ok(&repo.repo_path, &dest, &["--git-compat-map"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("loose-object-idx"),
        "summary does not mention the compat map"
    );
    assert_eq!(
        git(&dest, &["config", "extensions.compatObjectFormat"]),
        "sha1"
    );
    let map = rehash_export_map(&dest);
    // Every object, commits included, in one rev-parse call each way.
    let sha256s: Vec<&str> = map.values().map(|(s, _)| s.as_str()).collect();
    let mut args = vec!["rev-parse", "--output-object-format=sha1"];
    args.extend(&sha256s);
    let answered: Vec<String> = git(&dest, &args).lines().map(str::to_owned).collect();
    let expected: Vec<&String> = map.keys().collect();
    assert_eq!(answered.len(), expected.len());
    for (got, want) in answered.iter().zip(expected) {
        assert_eq!(got, want, "git's SHA-1 for a SHA-256 name");
    }
    // And git takes SHA-1 names as input (git 2.47: `rev-parse` only with
    // `--output-object-format=sha256`; `cat-file` directly).
    for (sha1, (sha256, kind)) in &map {
        if kind == "commit" {
            assert_eq!(
                &git(&dest, &["rev-parse", "--output-object-format=sha256", sha1]),
                sha256
            );
            assert_eq!(git(&dest, &["cat-file", "-t", sha1]), "commit");
        }
    }
    // git log works as usual, and the conversion still verifies.
    git(&dest, &["log", "--oneline", "--all"]);
    rehash_verify_ok(&dest, &repo.repo_path);
}
