//! Interruption, resume and incremental update of `git-rehash convert`.
//!
//! Identity of two conversions means: the same map (`map --export`), the
//! same refs (names, values, peeled values, HEAD) and the same object set;
//! the pack's bytes are compared where a test asks for them
//! ([`Artifacts`]: the pack's name, which is its checksum, the bitmap, the
//! commit-graph).
//! Kill points come from the test hook `GIT_REHASH_TEST_KILL_AT` (the
//! process aborts, as with SIGKILL, at the n-th checkpointable step: inside
//! a pack, between a pack's rename and its journal commit, inside the
//! SQLite transaction, after it, in the finish step, between refs and
//! publish, after publish) and from real signals at pseudo-random times.

mod closed_map;
mod finish;
mod incremental;
mod kill_points;
mod reverse;
mod scan_within_a_batch;
mod search_record;
mod signals;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::git::{git, git_output, git_with_input};
use crate::support::rehash::{rehash_command, rehash_export_text, run_ok};
use crate::support::repo_files::{all_objects, dir_names};
use crate::support::scratch::scratch_dir;

/// Objects per output pack in these tests: many segments, many kill points.
const SEGMENT_OBJECTS: &str = "5";
/// Objects per checkpointed batch of the scan: many batches too.
const SCAN_BATCH_OBJECTS: &str = "7";
/// Objects per parallel chunk of the write passes: many chunks, so that a
/// resumed run restarts in the middle of a pass.
const CHUNK_OBJECTS: &str = "6";

/// A fast-import stream of `n` commits on `branch` (numbered from
/// `start`), touching a few files each, then an annotated tag on the tip.
fn history(branch: &str, start: u32, n: u32, from: Option<&str>, tag: Option<&str>) -> String {
    let mut s = String::new();
    for i in start..start + n {
        s += &format!(
            "commit refs/heads/{branch}\nmark :{}\ncommitter C O Mitter <c@example.invalid> {} +0000\ndata <<EOT\ncommit {i} on {branch}\nEOT\n",
            i - start + 1,
            1_700_000_000 + i
        );
        if i == start
            && let Some(from) = from
        {
            s += &format!("from {from}\n");
        }
        s += &format!(
            "M 100644 inline file{}.txt\ndata <<EOT\nline {i}\nEOT\nM 100644 inline dir{}/sub{}/f{i}.txt\ndata <<EOT\ncontent {i} {branch}\nEOT\n",
            i % 5,
            i % 3,
            i % 2
        );
    }
    if let Some(tag) = tag {
        s += &format!(
            "tag {tag}\nfrom :{n}\ntagger T Agger <t@example.invalid> 1700000000 +0000\ndata <<EOT\nrelease {tag}\nEOT\n"
        );
    }
    s
}

fn fast_import(repo: &Path, stream: &str) {
    git_with_input(repo, &["fast-import", "--quiet"], stream.as_bytes());
}

/// A bare SHA-1 repository with three branches, tags and a reflog.
fn make_source(label: &str) -> PathBuf {
    make_source_in(label, "sha1")
}

/// [`make_source`] in object format `format` ("sha1" or "sha256").
fn make_source_in(label: &str, format: &str) -> PathBuf {
    let repo = scratch_dir(label).join("src.git");
    std::fs::create_dir_all(&repo).unwrap();
    let format = format!("--object-format={format}");
    git(&repo, &["init", "--bare", "-q", &format, "-b", "main"]);
    fast_import(&repo, &history("main", 0, 12, None, Some("v1")));
    fast_import(
        &repo,
        &history("topic", 100, 5, Some("refs/heads/main~3"), Some("t1")),
    );
    fast_import(
        &repo,
        &history("old", 200, 3, Some("refs/heads/main~6"), None),
    );
    let tip = git(&repo, &["rev-parse", "refs/heads/old"]);
    git(
        &repo,
        &[
            "update-ref",
            "--create-reflog",
            "-m",
            "made",
            "refs/heads/old",
            &tip,
        ],
    );
    repo
}

fn convert_cmd(source: &Path, dest: &Path) -> Command {
    let mut cmd = convert_cmd_with_summary(source, dest);
    cmd.arg("--quiet");
    cmd
}

/// `convert_cmd` that prints its summary and notes.
fn convert_cmd_with_summary(source: &Path, dest: &Path) -> Command {
    let mut cmd = rehash_command();
    // Two threads on any machine: the blobs and the map pass then write
    // their segment sequences at once, so kills also land while map-pass
    // packs wait, renamed in, for the last blob segment's commit.
    cmd.arg("convert")
        .arg(source)
        .arg(dest)
        .args(["--jobs", "2"])
        .env("GIT_REHASH_TEST_SEGMENT_OBJECTS", SEGMENT_OBJECTS)
        .env("GIT_REHASH_TEST_SCAN_BATCH_OBJECTS", SCAN_BATCH_OBJECTS)
        .env("GIT_REHASH_TEST_CHUNK_OBJECTS", CHUNK_OBJECTS);
    cmd
}

/// What must be identical between two conversions.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot {
    /// DEST's object format.
    format: String,
    map: String,
    refs: String,
    head: String,
    objects: BTreeMap<String, String>,
}

fn snapshot(dest: &Path) -> Snapshot {
    Snapshot {
        format: git(dest, &["rev-parse", "--show-object-format"]),
        map: rehash_export_text(dest),
        refs: git(
            dest,
            &[
                "for-each-ref",
                "--format=%(refname) %(objectname) %(*objectname)",
            ],
        ),
        head: git(dest, &["symbolic-ref", "HEAD"]),
        objects: all_objects(dest),
    }
}

fn assert_sound(dest: &Path, reference: &Snapshot, what: &str) {
    let fsck = git_output(dest, &["fsck", "--strict", "--no-dangling"]);
    assert!(
        fsck.status.success(),
        "{what}: fsck --strict: {}{}",
        String::from_utf8_lossy(&fsck.stdout),
        String::from_utf8_lossy(&fsck.stderr)
    );
    let got = snapshot(dest);
    assert!(
        got == *reference,
        "{what}: differs from an uninterrupted run"
    );
    // Nothing half-written is left behind.
    for name in dir_names(&dest.join("objects/pack")) {
        assert!(!name.starts_with("tmp_"), "{what}: leftover {name}");
    }
}

/// The snapshot of an uninterrupted conversion of `source`, which is in
/// the other object format.
fn reference(source: &Path, label: &str) -> Snapshot {
    reference_with_artifacts(source, label).0
}

/// What must be byte for byte the same between a run resumed after any
/// interruptions and an uninterrupted one: the pack (its name is its
/// checksum), its reachability bitmap and the commit-graph.
#[derive(Debug, PartialEq, Eq)]
struct Artifacts {
    packs: Vec<String>,
    bitmap: Vec<u8>,
    commit_graph: Vec<u8>,
}

fn artifacts(dest: &Path) -> Artifacts {
    let pack_dir = dest.join("objects/pack");
    let names = dir_names(&pack_dir);
    let packs: Vec<String> = names
        .iter()
        .filter(|n| n.ends_with(".pack"))
        .cloned()
        .collect();
    let bitmap = names
        .iter()
        .filter(|n| n.ends_with(".bitmap"))
        .flat_map(|n| std::fs::read(pack_dir.join(n)).unwrap())
        .collect();
    Artifacts {
        packs,
        bitmap,
        commit_graph: std::fs::read(dest.join("objects/info/commit-graph")).unwrap_or_default(),
    }
}

fn assert_identical_artifacts(dest: &Path, reference: &Artifacts, what: &str) {
    let got = artifacts(dest);
    assert_eq!(got.packs, reference.packs, "{what}: another pack");
    assert!(got.bitmap == reference.bitmap, "{what}: another bitmap");
    assert!(
        got.commit_graph == reference.commit_graph,
        "{what}: another commit-graph"
    );
}

/// The snapshot and artifacts of SOURCE's uninterrupted conversion.
fn reference_with_artifacts(source: &Path, label: &str) -> (Snapshot, Artifacts) {
    let dest = scratch_dir(label).join("ref.git");
    run_ok(&mut convert_cmd(source, &dest));
    let artifacts = artifacts(&dest);
    assert_eq!(artifacts.packs.len(), 1, "one pack");
    assert!(!artifacts.bitmap.is_empty(), "a bitmap");
    assert!(!artifacts.commit_graph.is_empty(), "a commit-graph");
    let converted = snapshot(&dest);
    let from = git(source, &["rev-parse", "--show-object-format"]);
    let to = if from == "sha1" { "sha256" } else { "sha1" };
    assert_eq!(converted.format, to, "{from} converts to {to}");
    (converted, artifacts)
}

/// A fresh source, the snapshot of its uninterrupted conversion, and a
/// DEST for the run under test.
fn source_reference_and_dest(label: &str) -> (PathBuf, Snapshot, PathBuf) {
    let source = make_source(label);
    let expected = reference(&source, &format!("{label}-ref"));
    let dest = scratch_dir(&format!("{label}-run")).join("dest.git");
    (source, expected, dest)
}

/// Kills a conversion of `source` into a new DEST (in a scratch directory
/// named after `label`) at `spec`, checks DEST does not look complete,
/// runs the conversion again to the end and checks it equals `expected`.
fn killed_then_resumed(source: &Path, expected: &Snapshot, spec: &str, label: &str) {
    let dest = scratch_dir(label).join("dest.git");
    convert_killed_at(source, &dest, spec);
    assert!(
        !dest.join("config").exists() || spec == "publish:1",
        "{spec}: DEST looks complete before it is"
    );
    run_ok(&mut convert_cmd(source, &dest));
    assert_sound(&dest, expected, &format!("killed at {spec}"));
}

fn killed(out: &Output) -> bool {
    !out.status.success() && out.status.code().is_none()
}

/// Runs the conversion with the test hook set to kill it at `spec`, and
/// checks that it was killed.
fn convert_killed_at(source: &Path, dest: &Path, spec: &str) {
    let out = convert_cmd(source, dest)
        .env("GIT_REHASH_TEST_KILL_AT", spec)
        .output()
        .unwrap();
    assert!(
        killed(&out),
        "kill point {spec} did not fire: {out:?}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
