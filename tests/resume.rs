//! Interruption, resume and incremental update of `git-rehash convert`.
//!
//! Identity of two conversions means: the same map (`map --export`), the
//! same refs (names, values, peeled values, HEAD) and the same object set;
//! the pack layout may differ (an interrupted run writes more packs).
//! Kill points come from the test hook `GIT_REHASH_TEST_KILL_AT` (the
//! process aborts, as with SIGKILL, at the n-th checkpointable step: inside
//! a pack, between a pack's rename and its journal commit, inside the
//! SQLite transaction, after it, between refs and publish) and from real
//! SIGKILLs at pseudo-random times.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

/// Objects per output pack in these tests: many segments, many kill points.
const SEGMENT_OBJECTS: &str = "5";
/// Objects per checkpointed batch of the scan: many batches too.
const SCAN_BATCH_OBJECTS: &str = "7";

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
    let repo = scratch_dir(label).join("src.git");
    std::fs::create_dir_all(&repo).unwrap();
    git(
        &repo,
        &["init", "--bare", "-q", "--object-format=sha1", "-b", "main"],
    );
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
        .env("GIT_REHASH_TEST_SCAN_BATCH_OBJECTS", SCAN_BATCH_OBJECTS);
    cmd
}

fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("run git-rehash");
    assert!(
        out.status.success(),
        "git-rehash failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// What must be identical between two conversions.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot {
    map: String,
    refs: String,
    head: String,
    objects: BTreeSet<String>,
}

fn snapshot(dest: &Path) -> Snapshot {
    let out = rehash_command()
        .args(["map", "--repo"])
        .arg(dest)
        .arg("--export")
        .output()
        .expect("map --export");
    assert!(out.status.success());
    let objects = git(
        dest,
        &[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname) %(objecttype)",
        ],
    )
    .lines()
    .map(str::to_owned)
    .collect();
    Snapshot {
        map: String::from_utf8(out.stdout).unwrap(),
        refs: git(
            dest,
            &[
                "for-each-ref",
                "--format=%(refname) %(objectname) %(*objectname)",
            ],
        ),
        head: git(dest, &["symbolic-ref", "HEAD"]),
        objects,
    }
}

fn assert_sound(dest: &Path, reference: &Snapshot, what: &str) {
    assert_eq!(git(dest, &["rev-parse", "--show-object-format"]), "sha256");
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
    for entry in std::fs::read_dir(dest.join("objects/pack")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with("tmp_"), "{what}: leftover {name}");
    }
}

fn reference(source: &Path, label: &str) -> Snapshot {
    let dest = scratch_dir(label).join("ref.git");
    run_ok(&mut convert_cmd(source, &dest));
    snapshot(&dest)
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

#[test]
fn killed_at_each_sampled_point_then_resumed_equals_uninterrupted() {
    let source = make_source("kill-sweep");
    let expected = reference(&source, "kill-sweep-ref");
    // Count the run's kill points: a kill point past the end never fires.
    let probe = scratch_dir("kill-probe").join("dest.git");
    let mut points = Vec::new();
    for k in (1..).step_by(9) {
        let _ = std::fs::remove_dir_all(&probe);
        let out = convert_cmd(&source, &probe)
            .env("GIT_REHASH_TEST_KILL_AT", k.to_string())
            .output()
            .unwrap();
        if !killed(&out) {
            break;
        }
        points.push(k.to_string());
    }
    // Every phase, including the windows inside a segment's commit.
    for spec in [
        "start:1",
        "scan-batch:1",
        "scan-batch:4",
        "object:1",
        "object:17",
        "pack-renamed:1",
        "pack-renamed:4",
        "in-commit:1",
        "in-commit:6",
        "committed:2",
        "refs:1",
        "publish:1",
    ] {
        points.push(spec.to_string());
    }
    assert!(points.len() >= 20, "only {} kill points", points.len());
    for spec in &points {
        let dest = scratch_dir("kill-sweep-run").join("dest.git");
        convert_killed_at(&source, &dest, spec);
        assert!(
            !dest.join("config").exists() || spec == "publish:1",
            "{spec}: DEST looks complete before it is"
        );
        run_ok(&mut convert_cmd(&source, &dest));
        assert_sound(&dest, &expected, &format!("killed at {spec}"));
    }
}

#[test]
fn a_run_killed_in_the_scan_resumes_from_its_checkpoint() {
    let source = make_source("scan-kill");
    let expected = reference(&source, "scan-kill-ref");
    let dest = scratch_dir("scan-kill-run").join("dest.git");
    convert_killed_at(&source, &dest, "scan-batch:3");
    // Three batches of 7 objects are durable; the next run decodes only the rest.
    let out = run_ok(&mut convert_cmd_with_summary(&source, &dest));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("note: 21 objects were scanned by the interrupted run"),
        "{stderr}"
    );
    assert_sound(&dest, &expected, "resumed after a kill in the scan");
    assert!(
        !dest.join("rehash/scan-checkpoint").exists(),
        "a finished run removes its scan checkpoint"
    );

    // A kill after the scan (inside pack writing) does not scan again either.
    let dest = scratch_dir("scan-kill-late").join("dest.git");
    convert_killed_at(&source, &dest, "committed:1");
    let out = run_ok(&mut convert_cmd_with_summary(&source, &dest));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("objects were scanned by the interrupted run"),
        "{stderr}"
    );
    assert_sound(&dest, &expected, "resumed after a kill in pack writing");
}

/// The rows of an interrupted run stay staged (a run merges them into the
/// map's table only when it ends), and readers see them all the same: the
/// export of the interrupted DEST is exactly the committed segments' part of
/// the finished map, and a query answers for one of them.
#[test]
fn an_interrupted_runs_map_answers_for_what_it_committed() {
    let source = make_source("staged-read");
    let expected = reference(&source, "staged-read-ref");
    let dest = scratch_dir("staged-read").join("dest.git");
    convert_killed_at(&source, &dest, "committed:4");
    let (staged, merged, journaled): (i64, i64, i64) = {
        let db = rusqlite::Connection::open_with_flags(
            dest.join("rehash/map.sqlite"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        db.query_row(
            "SELECT (SELECT count(*) FROM staged_rows), (SELECT count(*) FROM objects), \
                    (SELECT sum(objects) FROM segments)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
    };
    assert_eq!(
        (staged, merged),
        (4, 0),
        "four segments staged, none merged"
    );
    let export = snapshot(&dest).map;
    let finished: BTreeSet<&str> = expected.map.lines().collect();
    assert_eq!(export.lines().count() as i64, journaled);
    for line in export.lines() {
        assert!(finished.contains(line), "not in the finished map: {line}");
    }
    let first = export.lines().next().expect("rows were committed");
    let sha1 = first.split(' ').next().unwrap();
    let out = run_ok(
        rehash_command()
            .args(["map", "--repo"])
            .arg(&dest)
            .arg(&sha1[..10]),
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), first);

    run_ok(&mut convert_cmd(&source, &dest));
    assert_sound(&dest, &expected, "resumed after readers saw staged rows");
}

#[test]
fn killed_again_and_again_while_resuming() {
    let source = make_source("kill-chain");
    let expected = reference(&source, "kill-chain-ref");
    let dest = scratch_dir("kill-chain-run").join("dest.git");
    let mut kills = 0u32;
    loop {
        // A run meets 1 start point, then per segment of 5 objects 5 object
        // points, pack-renamed, in-commit and committed: killing at 10 or
        // later lets each run commit at least one segment.
        let at = 10 + (kills * 5) % 6;
        let out = convert_cmd(&source, &dest)
            .env("GIT_REHASH_TEST_KILL_AT", at.to_string())
            .output()
            .unwrap();
        if out.status.success() {
            break;
        }
        assert!(killed(&out), "{}", String::from_utf8_lossy(&out.stderr));
        kills += 1;
    }
    assert!(kills >= 20, "only {kills} interruptions");
    assert_sound(&dest, &expected, "after repeated kills");
}

#[test]
fn real_sigkill_at_pseudo_random_times() {
    let source = make_source("sigkill");
    let expected = reference(&source, "sigkill-ref");
    let dest = scratch_dir("sigkill-run").join("dest.git");
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut kills = 0;
    loop {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let delay = std::time::Duration::from_millis(5 + (seed >> 33) % 60);
        let mut child = convert_cmd(&source, &dest)
            .env("GIT_REHASH_TEST_PAUSE_MS", "3")
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        let status = child.wait().unwrap();
        if status.success() {
            break;
        }
        kills += 1;
        if kills >= 25 {
            // Enough interruptions: let it finish.
            run_ok(&mut convert_cmd(&source, &dest));
            break;
        }
    }
    assert_sound(&dest, &expected, "after SIGKILLs");
}

#[test]
fn ctrl_c_stops_at_a_checkpoint_and_exits_130() {
    let source = make_source("sigint");
    let expected = reference(&source, "sigint-ref");
    let dest = scratch_dir("sigint-run").join("dest.git");
    let child = convert_cmd(&source, &dest)
        .env("GIT_REHASH_TEST_PAUSE_MS", "100")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("Run the same command again to resume"),
        "{stderr}"
    );
    assert!(!dest.join("config").exists());
    run_ok(&mut convert_cmd(&source, &dest));
    assert_sound(&dest, &expected, "after Ctrl-C");
}

#[test]
fn incremental_update_converts_only_new_objects_and_moves_refs() {
    use git_rehash::convert::{ConvertOptions, convert};
    use git_rehash::progress::NoProgress;
    let source = make_source("incremental");
    let dest = scratch_dir("incremental-run").join("dest.git");
    let first = convert(&ConvertOptions::new(&source, &dest), &NoProgress).unwrap();
    assert_eq!(first.objects_read, first.objects_listed);

    // Nothing new: nothing read, nothing written.
    let noop = convert(&ConvertOptions::new(&source, &dest), &NoProgress).unwrap();
    assert_eq!((noop.objects_read, noop.packs_written), (0, 0));
    assert_eq!(noop.objects_known, first.objects_listed);

    let before = all_objects(&source);
    fast_import(
        &source,
        &history("main", 12, 4, Some("refs/heads/main^0"), Some("v2")),
    );
    fast_import(
        &source,
        &history("feature", 300, 3, Some("refs/heads/topic"), None),
    );
    git(&source, &["update-ref", "-d", "refs/heads/old"]);
    git(&source, &["tag", "light", "refs/heads/feature"]);
    git(&source, &["symbolic-ref", "HEAD", "refs/heads/feature"]);
    let after = all_objects(&source);
    let new_objects = after.keys().filter(|k| !before.contains_key(*k)).count() as u64;
    assert!(new_objects > 20);

    let second = convert(&ConvertOptions::new(&source, &dest), &NoProgress).unwrap();
    assert_eq!(
        second.objects_read, new_objects,
        "reads only the new objects"
    );
    assert_eq!(second.objects_known, before.len() as u64);
    assert_eq!(second.refs_deleted, 1);
    assert!(!dest.join("refs/heads/old").exists());
    assert!(!dest.join("logs/refs/heads/old").exists());

    let fresh = scratch_dir("incremental-fresh").join("dest.git");
    convert(&ConvertOptions::new(&source, &fresh), &NoProgress).unwrap();
    let expected = snapshot(&fresh);
    assert_sound(&dest, &expected, "incremental update");
    assert_eq!(git(&dest, &["symbolic-ref", "HEAD"]), "refs/heads/feature");
}

#[test]
fn refuses_a_dest_made_from_another_source_or_with_other_options() {
    let source = make_source("mismatch");
    let other = make_source("mismatch-other");
    let dest = scratch_dir("mismatch-run").join("dest.git");
    run_ok(&mut convert_cmd(&source, &dest));
    let out = convert_cmd(&other, &dest).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("was converted from") && stderr.contains("--force"),
        "{stderr}"
    );
    let out = convert_cmd(&source, &dest)
        .args(["--compression", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("compression"), "{stderr}");
    // --force starts over from the other source.
    run_ok(convert_cmd(&other, &dest).arg("--force"));
    let expected = reference(&other, "mismatch-ref");
    assert_sound(&dest, &expected, "after --force");
}
