//! `--export` in every format, equal to git's own map; the
//! `loose-object-idx` format is read by git itself.

use crate::support::converted::default_conversion;
use crate::support::file_tree::copy_dir;
use crate::support::fixture::FixtureOptions;
use crate::support::git::git;
use crate::support::oracle::{one_of_each_type, parse_oracle, tricky_oracle};
use crate::support::process::stdout_text;
use crate::support::rehash::rehash_map;
use crate::support::scratch::scratch_dir;

#[test]
fn export_text_tsv_json_commit_map() {
    let c = default_conversion();
    let oracle = tricky_oracle(FixtureOptions::default());
    let text = stdout_text(&rehash_map(&c.dest, &["--export"]));
    assert_eq!(&parse_oracle(&text), oracle);
    let expected_text: String = oracle
        .iter()
        .map(|(a, (b, t))| format!("{a} {b} {t}\n"))
        .collect();
    assert_eq!(text, expected_text, "sorted by SHA-1");

    let tsv = stdout_text(&rehash_map(&c.dest, &["--export", "--format", "tsv"]));
    assert_eq!(
        tsv,
        format!("sha1\tsha256\ttype\n{}", expected_text.replace(' ', "\t"))
    );

    let json = stdout_text(&rehash_map(&c.dest, &["--export", "--format", "json"]));
    let expected_json: String = oracle
        .iter()
        .map(|(a, (b, t))| format!("{{\"sha1\":\"{a}\",\"sha256\":\"{b}\",\"type\":\"{t}\"}}\n"))
        .collect();
    assert_eq!(json, expected_json);

    let commit_map = stdout_text(&rehash_map(
        &c.dest,
        &["--export", "--format", "commit-map"],
    ));
    let expected_commits: String = oracle
        .iter()
        .filter(|(_, (_, t))| t == "commit")
        .map(|(a, (b, _))| format!("{a} {b}\n"))
        .collect();
    assert_eq!(
        commit_map,
        format!("old{}new\n{expected_commits}", " ".repeat(38))
    );
}

#[test]
fn loose_object_idx_export_is_read_by_git() {
    let c = default_conversion();
    let idx = rehash_map(&c.dest, &["--export", "--format", "loose-object-idx"]);
    assert!(idx.status.success());
    let text = stdout_text(&idx);
    assert!(text.starts_with("# loose-object-idx\n"));
    // A private copy of DEST that git reads with SHA-1 as compat format.
    let repo = scratch_dir("loose-object-idx").join("dest.git");
    copy_dir(&c.dest, &repo);
    std::fs::write(repo.join("objects/loose-object-idx"), &idx.stdout).unwrap();
    git(&repo, &["config", "extensions.compatObjectFormat", "sha1"]);
    for (s1, s256, t) in one_of_each_type() {
        assert_eq!(
            git(&repo, &["rev-parse", "--output-object-format=sha1", &s256]),
            s1,
            "{t}"
        );
        assert_eq!(
            git(&repo, &["rev-parse", "--output-object-format=sha256", &s1]),
            s256,
            "{t}"
        );
    }
}
