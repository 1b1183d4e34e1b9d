//! An export killed at any step (the test hook `GIT_REHASH_TEST_KILL_AT`,
//! which aborts the process as SIGKILL would) and run again ends exactly
//! like an uninterrupted one: MIRROR's refs, HEAD and objects, and DEST's
//! map; MIRROR's refs never name an object it lacks meanwhile, and
//! nothing half-written is left behind.

use std::path::{Path, PathBuf};
use std::process::Output;

use super::{Exported, assert_fsck, empty_mirror, export_cmd, exported, scene};
use crate::support::file_tree::copy_dir;
use crate::support::git::git;
use crate::support::history::commit_file;
use crate::support::repo_files::dir_names;
use crate::support::scratch::scratch_dir;

/// Objects per segment: many segments, many kill points.
const SEGMENT_OBJECTS: &str = "5";

/// A DEST with new history, kept pristine: each run gets a copy.
fn pristine_dest(label: &str) -> PathBuf {
    let scene = scene(label, &[]);
    for n in 0..6 {
        commit_file(
            &scene.work,
            &format!("new-{n}.txt"),
            &format!("made in DEST {n}\n"),
            &format!("new {n}"),
        );
    }
    git(&scene.work, &["tag", "-a", "-m", "new tag", "v-new"]);
    git(&scene.dest, &["branch", "-D", "old"]);
    scene.dest
}

/// A copy of `pristine` and an empty mirror beside it.
fn fresh_pair(pristine: &Path, label: &str) -> (PathBuf, PathBuf) {
    let dir = scratch_dir(label);
    let dest = dir.join("dest.git");
    copy_dir(pristine, &dest);
    let mirror = empty_mirror(&dir);
    (dest, mirror)
}

fn run(dest: &Path, mirror: &Path, kill_at: Option<&str>) -> Output {
    let mut cmd = export_cmd(dest, mirror, &["--quiet", "--jobs", "2"]);
    cmd.env("GIT_REHASH_TEST_SEGMENT_OBJECTS", SEGMENT_OBJECTS);
    if let Some(spec) = kill_at {
        cmd.env("GIT_REHASH_TEST_KILL_AT", spec);
    }
    cmd.output().unwrap()
}

fn killed(out: &Output) -> bool {
    !out.status.success() && out.status.code().is_none()
}

fn finish(dest: &Path, mirror: &Path, what: &str) -> Exported {
    let out = run(dest, mirror, None);
    assert!(
        out.status.success(),
        "{what}: the run after the kill failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_fsck(mirror);
    for dir in ["rehash-export/segments", "rehash-export/fold"] {
        let left = dir_names(&mirror.join(dir));
        assert!(left.is_empty(), "{what}: {dir} still holds {left:?}");
    }
    let pack = dir_names(&mirror.join("objects/pack"));
    assert!(
        pack.iter().all(|n| !n.starts_with("tmp_")),
        "{what}: {pack:?}"
    );
    exported(dest, mirror)
}

#[test]
fn killed_at_each_step_then_run_again_equals_an_uninterrupted_export() {
    let pristine = pristine_dest("export-kill");
    let (dest, mirror) = fresh_pair(&pristine, "export-kill-ref");
    let expected = finish(&dest, &mirror, "uninterrupted");
    for spec in [
        "start:1",
        "object:1",
        "object:12",
        "segment-renamed:1",
        "segment-renamed:4",
        "committed:1",
        "committed:3",
        "folded:1",
        "moved-in:1",
        "refs:1",
    ] {
        let (dest, mirror) = fresh_pair(&pristine, "export-kill-run");
        let out = run(&dest, &mirror, Some(spec));
        assert!(
            killed(&out),
            "kill point {spec} did not fire: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if spec != "refs:1" {
            assert_eq!(
                git(&mirror, &["for-each-ref"]),
                "",
                "{spec}: refs before the pack"
            );
        }
        let got = finish(&dest, &mirror, spec);
        assert!(
            got == expected,
            "killed at {spec}: differs from an uninterrupted run"
        );
    }
}

#[test]
fn killed_again_and_again_each_run_keeps_what_the_last_one_wrote() {
    let pristine = pristine_dest("export-kill-chain");
    let (dest, mirror) = fresh_pair(&pristine, "export-kill-chain-ref");
    let expected = finish(&dest, &mirror, "uninterrupted");
    let (dest, mirror) = fresh_pair(&pristine, "export-kill-chain-run");
    let mut kills = 0;
    // Each run finishes a segment of 5 objects before the kill at its
    // sixth object: the runs make progress however often they are killed.
    while killed(&run(&dest, &mirror, Some("object:6"))) {
        kills += 1;
        assert!(kills < 200, "no progress");
    }
    assert!(kills >= 10, "only {kills} kills");
    let got = finish(&dest, &mirror, "after repeated kills");
    assert!(got == expected, "differs from an uninterrupted run");
}
