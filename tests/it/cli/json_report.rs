//! `convert --json`: one JSON object on stdout, for a conversion, an
//! update and refusals, with the counts git sees and the objects a
//! refusal names.

use std::collections::BTreeMap;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::fixture::{FixtureOptions, tricky_repo};
use crate::support::git::git;
use crate::support::refusal::assert_refused_cleanly;
use crate::support::rehash::rehash_convert;
use crate::support::repo_files::{all_objects, loose_object_path, pack_files};
use crate::support::scratch::scratch_dir;
use crate::support::unmapped_mergetags::mergetag_source;
use crate::support::watched_source::small_repo;

/// The one line of JSON `out` printed on stdout.
fn report(out: &Output) -> Value {
    let stdout = String::from_utf8(out.stdout.clone()).expect("UTF-8 stdout");
    assert_eq!(stdout.lines().count(), 1, "one line of JSON: {stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

#[test]
fn conversion_and_update_report_what_they_wrote() {
    let source = small_repo("json-converted");
    git(&source.path, &["tag", "-a", "-m", "a tag", "v1"]);
    let dest = scratch_dir("json-converted").join("dest.git");

    let out = rehash_convert(&source.path, &dest, &["--quiet", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "--quiet keeps stderr quiet");
    let first = report(&out);
    assert_eq!(first["status"], "converted");
    assert_eq!(first["exit_code"], 0);
    assert_eq!(first["error"], Value::Null);
    let stored = all_objects(&source.path);
    let mut by_type: BTreeMap<String, u64> = ["blob", "commit", "tag", "tree"]
        .into_iter()
        .map(|t| (t.to_owned(), 0))
        .collect();
    for kind in stored.values() {
        *by_type.get_mut(kind).unwrap() += 1;
    }
    let result = &first["result"];
    assert_eq!(result["objects_by_type"], json!(by_type));
    assert_eq!(result["objects_listed"], stored.len());
    assert_eq!(result["objects_converted"], stored.len());
    assert_eq!(result["packs_written"], 1);
    let packs = pack_files(&dest);
    assert_eq!(packs.len(), 1);
    assert_eq!(result["pack_bytes"], packs[0].metadata().unwrap().len());
    assert_eq!(result["refs_written"], 2, "main and v1");
    let phases = first["phases"].as_array().unwrap();
    let names: Vec<&str> = phases
        .iter()
        .map(|p| p["phase"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"writing objects"), "{names:?}");
    assert_eq!(names.last(), Some(&"whole run"));
    assert!(
        phases
            .iter()
            .all(|p| p["wall_seconds"].as_f64().unwrap() >= 0.0)
    );

    let again = report(&rehash_convert(&source.path, &dest, &["--quiet", "--json"]));
    assert_eq!(again["status"], "updated");
    assert_eq!(again["exit_code"], 0);
    assert_eq!(again["result"]["objects_converted"], 0);
    assert_eq!(again["result"]["objects_already_converted"], stored.len());
}

/// `--jobs 0` is every core, as git's `pack.threads = 0`; the report
/// says how many workers ran.
#[test]
fn jobs_0_runs_a_worker_on_every_core() {
    let source = small_repo("json-jobs");
    let root = scratch_dir("json-jobs");
    let cores = std::thread::available_parallelism().unwrap().get();
    for (jobs, workers) in [("0", cores), ("1", 1), ("3", 3)] {
        let dest = root.join(format!("jobs-{jobs}.git"));
        let out = rehash_convert(&source.path, &dest, &["--quiet", "--json", "--jobs", jobs]);
        let done = report(&out);
        assert_eq!(done["status"], "converted", "{done}");
        if jobs == "0" && std::env::var_os("RAYON_NUM_THREADS").is_some() {
            continue; // the thread pool's default follows it
        }
        assert_eq!(done["result"]["workers"], workers, "--jobs {jobs}");
    }
}

#[test]
fn refusal_names_the_missing_object_and_who_references_it() {
    let source = small_repo("json-missing");
    let blob = git(&source.path, &["rev-parse", "HEAD:f1.txt"]);
    let tree = git(&source.path, &["rev-parse", "HEAD^{tree}"]);
    std::fs::remove_file(loose_object_path(&source.git_dir, &blob)).unwrap();
    let dest = scratch_dir("json-missing").join("dest.git");

    let out = rehash_convert(&source.path, &dest, &["--json"]);
    // The human message is on stderr as without --json.
    assert_refused_cleanly(&out, &dest, &["object(s) are missing", &blob]);
    let refused = report(&out);
    assert_eq!(refused["status"], "refused");
    assert_eq!(refused["exit_code"], 1);
    assert_eq!(refused["result"], Value::Null);
    let error = &refused["error"];
    assert_eq!(error["kind"], "refused");
    assert!(error["message"].as_str().unwrap().contains(&blob));
    // f1.txt is in the trees of two commits: each names the blob.
    let missing = error["missing_objects"].as_array().unwrap();
    assert!(
        missing.iter().all(|m| m["id"] == blob.as_str()),
        "{missing:?}"
    );
    let from_head = missing
        .iter()
        .find(|m| m["referenced_by"] == tree.as_str())
        .expect("HEAD's tree names it");
    assert_eq!(from_head["referenced_by_type"], "tree");
    assert_eq!(from_head["role"], "entry");
    // ... and the refs that reach it, with the option that gets past them.
    let head = &from_head["reached_from"];
    assert!(head["count"].as_u64().unwrap() > 0, "{head}");
    assert!(
        head["first"]
            .as_array()
            .unwrap()
            .contains(&json!("refs/heads/main")),
        "{head}"
    );
    assert_eq!(error["reaching_refs"], *head);
    assert!(
        error["options_past"]
            .as_str()
            .unwrap()
            .contains("--exclude-refs 'refs/heads/main'"),
        "{error}"
    );
}

#[test]
fn refusal_names_the_unmapped_gitlinks_path_and_commits() {
    let repo = tricky_repo(FixtureOptions::GITLINK);
    let dest = scratch_dir("json-gitlink").join("dest.git");

    let out = rehash_convert(&repo.repo_path, &dest, &["--quiet", "--json"]);
    assert_refused_cleanly(&out, &dest, &["submodule path sub:"]);
    let refused = report(&out);
    assert_eq!(refused["status"], "refused");
    let gitlinks = refused["error"]["unmapped_gitlinks"].as_array().unwrap();
    assert_eq!(gitlinks.len(), 1, "{gitlinks:?}");
    assert_eq!(gitlinks[0]["path"], "sub");
    assert_eq!(gitlinks[0]["commits"], json!([repo.sub_head]));
    let commit = gitlinks[0]["pinned_by"].as_str().expect("a pinning commit");
    let entry = git(&repo.repo_path, &["ls-tree", commit, "sub"]);
    assert!(entry.contains(&repo.sub_head), "{entry}");
}

#[test]
fn refusal_names_every_commit_whose_mergetag_names_an_absent_object() {
    let repo = mergetag_source("json-mergetag");
    let dest = scratch_dir("json-mergetag").join("dest.git");

    let out = rehash_convert(&repo.source.path, &dest, &["--quiet", "--json"]);
    assert_refused_cleanly(&out, &dest, &["--unmapped-mergetags=verbatim"]);
    let refused = report(&out);
    assert_eq!(refused["status"], "refused");
    assert_eq!(refused["exit_code"], 1);
    assert_eq!(refused["error"]["kind"], "refused");
    let expected: Vec<Value> = repo
        .unmapped
        .iter()
        .map(|(commit, target)| json!({ "commit": commit, "target": target }))
        .collect();
    let listed = refused["error"]["unmapped_mergetags"].as_array().unwrap();
    let named: Vec<Value> = listed
        .iter()
        .map(|m| json!({ "commit": m["commit"], "target": m["target"] }))
        .collect();
    assert_eq!(named, expected);
    // Each with the refs that reach the commit.
    assert!(
        listed
            .iter()
            .all(|m| m["reached_from"]["count"].as_u64() > Some(0)),
        "{listed:?}"
    );

    let extra = ["--quiet", "--json", "--unmapped-mergetags=verbatim"];
    let converted = report(&rehash_convert(&repo.source.path, &dest, &extra));
    assert_eq!(converted["status"], "converted", "{converted}");
    assert_eq!(converted["result"]["verbatim_mergetag_commits"], 2);
}
