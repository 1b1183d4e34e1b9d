//! A run killed at a checkpointable step (the test hook
//! `GIT_REHASH_TEST_KILL_AT`), then run again, ends exactly like a run
//! that was never interrupted, to the bytes of its pack, bitmap and
//! commit-graph; what it committed before the kill is readable meanwhile.

use std::collections::BTreeSet;
use std::path::Path;

use super::{
    assert_identical_artifacts, assert_sound, convert_cmd, convert_cmd_with_summary,
    convert_killed_at, killed, make_source, reference_with_artifacts, source_reference_and_dest,
};
use crate::support::rehash::{rehash_export_text, rehash_map, run_ok};
use crate::support::scratch::scratch_dir;

#[test]
fn killed_at_each_sampled_point_then_resumed_equals_uninterrupted() {
    let source = make_source("kill-sweep");
    let (expected, artifacts) = reference_with_artifacts(&source, "kill-sweep-ref");
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
    // Every named kill point (statement-kept is met only by a DEST with a
    // signed statement of its own: the attest tests kill there), including
    // the windows inside a segment's commit and the finish step's.
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
        "folded:1",
        "fold-recorded:1",
        "refs:1",
        "publish:1",
    ] {
        points.push(spec.to_string());
    }
    // And pseudo-random instants of the write phase: the n-th object
    // appended to either sequence.
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..6 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        points.push(format!("object:{}", 1 + seed % 60));
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
        assert_identical_artifacts(&dest, &artifacts, &format!("killed at {spec}"));
    }
}

/// Kills a run at `spec`, then runs it again to the end; returns the
/// second run's summary and notes.
fn kill_then_resume(source: &Path, dest: &Path, spec: &str) -> String {
    convert_killed_at(source, dest, spec);
    let out = run_ok(&mut convert_cmd_with_summary(source, dest));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_run_killed_in_the_scan_resumes_from_its_checkpoint() {
    let (source, expected, dest) = source_reference_and_dest("scan-kill");
    // Three batches of 7 objects are durable; the next run decodes only the rest.
    let stderr = kill_then_resume(&source, &dest, "scan-batch:3");
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
    let stderr = kill_then_resume(&source, &dest, "committed:1");
    assert!(
        stderr.contains("objects were scanned by the interrupted run"),
        "{stderr}"
    );
    assert_sound(&dest, &expected, "resumed after a kill in pack writing");
}

/// The rows of an interrupted run stay staged (a run merges them into the
/// map's table only when it ends), and readers see them all the same: the
/// export of the interrupted DEST is exactly the part of the finished map
/// that its segments committed into the map (not the rows of the ones
/// waiting for blobs), and a query answers for one of them.
#[test]
fn an_interrupted_runs_map_answers_for_what_it_committed() {
    let (source, expected, dest) = source_reference_and_dest("staged-read");
    convert_killed_at(&source, &dest, "committed:4");
    let (staged, waiting, merged, journaled): (i64, i64, i64, i64) = {
        let db = rusqlite::Connection::open_with_flags(
            dest.join("rehash/map.sqlite"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        db.query_row(
            "SELECT (SELECT count(*) FROM staged_rows), (SELECT count(*) FROM waiting_rows), \
                    (SELECT count(*) FROM objects), \
                    (SELECT sum(objects) FROM segments JOIN staged_rows USING (pack))",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap()
    };
    assert_eq!(
        (staged + waiting, merged),
        (4, 0),
        "four segments journaled, none merged"
    );
    // Only the map: DEST is not a repository yet, so git cannot read it.
    let export = rehash_export_text(&dest);
    let finished: BTreeSet<&str> = expected.map.lines().collect();
    assert_eq!(export.lines().count() as i64, journaled);
    for line in export.lines() {
        assert!(finished.contains(line), "not in the finished map: {line}");
    }
    let first = export.lines().next().expect("rows were committed");
    let sha1 = first.split(' ').next().unwrap();
    let out = rehash_map(&dest, &[&sha1[..10]]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), first);

    run_ok(&mut convert_cmd(&source, &dest));
    assert_sound(&dest, &expected, "resumed after readers saw staged rows");
}

#[test]
fn killed_again_and_again_while_resuming() {
    let source = make_source("kill-chain");
    let (expected, artifacts) = reference_with_artifacts(&source, "kill-chain-ref");
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
    assert_identical_artifacts(&dest, &artifacts, "after repeated kills");
}
