//! The finish step: the segments a conversion checkpointed in become one
//! pack, whatever their sizes, the thread count or the kills on the way,
//! and DEST gets a commit-graph and a reachability bitmap. Incremental runs
//! add one pack each; `git-rehash repack` folds them into one again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{
    CHUNK_OBJECTS, SCAN_BATCH_OBJECTS, assert_sound, convert_cmd, convert_killed_at, fast_import,
    history, make_source, snapshot,
};
use crate::support::git::{git, git_output, git_with_input};
use crate::support::library::{IdMap, map_path, written_depths};
use crate::support::rehash::{rehash_command, rehash_export_text, rehash_verify_ok, run_ok};
use crate::support::repo_files::{dir_names, listed_objects, pack_files};
use crate::support::scratch::scratch_dir;
use crate::support::serving::assert_same_as_read_from_the_pack;

/// `convert --quiet` with segments of `segment_objects` on `jobs` threads.
fn convert_with(source: &Path, dest: &Path, segment_objects: &str, jobs: &str) -> Command {
    let mut cmd = rehash_command();
    cmd.arg("convert")
        .arg(source)
        .arg(dest)
        .args(["--quiet", "--jobs", jobs])
        .env("GIT_REHASH_TEST_SEGMENT_OBJECTS", segment_objects)
        .env("GIT_REHASH_TEST_SCAN_BATCH_OBJECTS", SCAN_BATCH_OBJECTS)
        .env("GIT_REHASH_TEST_CHUNK_OBJECTS", CHUNK_OBJECTS);
    cmd
}

/// The names of DEST's packs (a pack's name is its checksum).
fn pack_names(dest: &Path) -> Vec<String> {
    pack_files(dest)
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// One pack with its `.idx`, `.rev` and `.bitmap`, a commit-graph, and
/// git answering from both, its own check of the bitmap included.
fn assert_ready_to_serve(dest: &Path, source: &Path) {
    let names = pack_names(dest);
    assert_eq!(names.len(), 1, "{names:?}");
    let files = dir_names(&dest.join("objects/pack"));
    for ext in ["idx", "rev", "bitmap"] {
        assert!(files.contains(&format!("{}.{ext}", names[0])), "{files:?}");
    }
    assert!(dest.join("objects/info/commit-graph").is_file());
    assert!(git(dest, &["count-objects", "-v"]).contains("\npacks: 1\n"));
    assert_eq!(
        git(
            dest,
            &["rev-list", "--use-bitmap-index", "--count", "--all"]
        ),
        git(source, &["rev-list", "--count", "--all"])
    );
    let checked = git_output(dest, &["rev-list", "--test-bitmap", "HEAD"]);
    assert!(
        checked.status.success() && String::from_utf8_lossy(&checked.stderr).ends_with("OK!\n"),
        "{checked:?}"
    );
    git(dest, &["commit-graph", "verify"]);
    let idx = dest.join("objects/pack").join(format!("{}.idx", names[0]));
    git(dest, &["verify-pack", idx.to_str().unwrap()]);
}

/// A source and the pack name of its conversion in segments of 5 objects.
fn source_and_reference_pack(label: &str) -> (PathBuf, String, PathBuf) {
    let source = make_source(label);
    let reference = scratch_dir(&format!("{label}-ref")).join("dest.git");
    run_ok(&mut convert_cmd(&source, &reference));
    assert_ready_to_serve(&reference, &source);
    rehash_verify_ok(&reference, &source);
    let pack = pack_names(&reference).remove(0);
    (source, pack, reference)
}

#[test]
fn the_pack_depends_on_neither_segment_sizes_nor_threads() {
    let (source, pack, _) = source_and_reference_pack("finish-sizes");
    for (segment_objects, jobs) in [("3", "1"), ("17", "3"), ("100000", "1"), ("100000", "3")] {
        let dest = scratch_dir(&format!("finish-sizes-{segment_objects}-j{jobs}")).join("d.git");
        run_ok(&mut convert_with(&source, &dest, segment_objects, jobs));
        assert_eq!(
            pack_names(&dest),
            vec![pack.clone()],
            "segments of {segment_objects}, {jobs} thread(s)"
        );
    }
}

#[test]
fn the_finish_step_killed_and_resumed_ends_as_an_uninterrupted_run() {
    let (source, pack, reference) = source_and_reference_pack("finish-kill");
    let expected = snapshot(&reference);
    for spec in ["folded:1", "fold-recorded:1"] {
        let dest = scratch_dir(&format!("finish-kill-{spec}")).join("dest.git");
        convert_killed_at(&source, &dest, spec);
        run_ok(&mut convert_cmd(&source, &dest));
        assert_sound(&dest, &expected, spec);
        assert_eq!(pack_names(&dest), vec![pack.clone()], "killed at {spec}");
        assert_ready_to_serve(&dest, &source);
        // The next run translated nothing: it read every object back.
        assert_same_as_read_from_the_pack(&dest, spec);
    }
}

/// Killed in the middle of the map pass, the next run records what only
/// it translates and reads the rest back from the pack.
#[test]
fn a_run_resumed_in_the_map_pass_serves_what_the_pack_holds() {
    let source = make_source("finish-map-kill");
    let dest = scratch_dir("finish-map-kill-run").join("dest.git");
    convert_killed_at(&source, &dest, "committed:3");
    run_ok(&mut convert_cmd(&source, &dest));
    assert_ready_to_serve(&dest, &source);
    assert_same_as_read_from_the_pack(&dest, "map-kill");
}

/// Adds a commit to `main` whose objects are loose (no source pairing:
/// the window search places them).
fn add_loose_commit(source: &Path) {
    let body = "line 1\n".repeat(40) + "a loose line\n";
    let text = |out: Vec<u8>| String::from_utf8(out).unwrap().trim().to_string();
    let blob = text(git_with_input(
        source,
        &["hash-object", "-w", "--stdin"],
        body.as_bytes(),
    ));
    let main = git(source, &["rev-parse", "refs/heads/main"]);
    let base_tree = git(source, &["rev-parse", "refs/heads/main^{tree}"]);
    let listing = git(source, &["ls-tree", &base_tree]);
    let entries = format!("{listing}\n100644 blob {blob}\tloose.txt\n");
    let tree = text(git_with_input(source, &["mktree"], entries.as_bytes()));
    let commit = git(source, &["commit-tree", &tree, "-p", &main, "-m", "loose"]);
    git(source, &["update-ref", "refs/heads/main", &commit]);
}

/// Killed anywhere in the write phase and resumed, a conversion ends with
/// the pack of a run that was never interrupted, byte for byte: the
/// resumed run plans what the interrupted one wrote again (its chunks,
/// search windows and deltas) and writes only the rest.
#[test]
fn a_run_killed_while_writing_and_resumed_writes_the_same_pack() {
    let source = make_source("finish-resume-same");
    add_loose_commit(&source);
    let variants: [&[&str]; 2] = [&[], &["--window", "0"]];
    for (v, args) in variants.into_iter().enumerate() {
        let reference = scratch_dir(&format!("finish-resume-same-ref{v}")).join("dest.git");
        run_ok(convert_cmd(&source, &reference).args(args));
        let pack = pack_names(&reference);
        for spec in [
            "committed:1",
            "committed:3",
            "object:17",
            "object:45",
            "in-commit:2",
        ] {
            let dest = scratch_dir(&format!("finish-resume-same-{v}-{spec}")).join("dest.git");
            let out = convert_cmd(&source, &dest)
                .args(args)
                .env("GIT_REHASH_TEST_KILL_AT", spec)
                .output()
                .unwrap();
            assert!(out.status.code().is_none(), "{spec} did not fire: {out:?}");
            run_ok(convert_cmd(&source, &dest).args(args));
            assert_eq!(pack_names(&dest), pack, "{args:?}, killed at {spec}");
            assert_eq!(rehash_export_text(&dest), rehash_export_text(&reference));
        }
    }
}

/// What a resumed run reads back from an interrupted run's segments, the
/// chain length of each object written, is the chain length of that
/// object in the pack the run ends with (which is the pack of an
/// uninterrupted run).
#[test]
fn the_chain_lengths_read_back_from_segments_are_those_of_the_pack() {
    let source = make_source("finish-resume-depths");
    let dest = scratch_dir("finish-resume-depths").join("dest.git");
    let out = convert_with(&source, &dest, "8", "2")
        .env("GIT_REHASH_TEST_KILL_AT", "committed:12")
        .output()
        .unwrap();
    assert!(
        out.status.code().is_none(),
        "the kill did not fire: {out:?}"
    );
    let map = IdMap::open_read_only(&map_path(&dest)).unwrap();
    let read_back = written_depths(&dest, &map).unwrap();
    drop(map);
    assert!(
        read_back.values().any(|&depth| depth > 0),
        "no delta among {} objects read back",
        read_back.len()
    );
    run_ok(&mut convert_with(&source, &dest, "8", "2"));
    let in_pack: HashMap<String, u32> = listed_objects(&dest)
        .into_iter()
        .map(|o| (o.id, o.depth))
        .collect();
    for (name, depth) in &read_back {
        let hex = name.to_hex();
        assert_eq!(in_pack.get(&hex), Some(depth), "{hex}");
    }
}

/// An incremental run killed while writing and resumed adds the pack an
/// uninterrupted incremental run adds: only the objects of its own pending
/// segments are planned again, not those of the finished pack.
#[test]
fn an_incremental_run_killed_while_writing_and_resumed_adds_the_same_pack() {
    let source = make_source("finish-resume-incr");
    let specs = ["committed:1", "committed:2", "object:9"];
    let dests: Vec<PathBuf> = std::iter::once("ref")
        .chain(specs)
        .map(|label| scratch_dir(&format!("finish-resume-incr-{label}")).join("dest.git"))
        .collect();
    for dest in &dests {
        run_ok(&mut convert_cmd(&source, dest));
    }
    fast_import(
        &source,
        &history("main", 12, 6, Some("refs/heads/main^0"), Some("v2")),
    );
    add_loose_commit(&source);
    run_ok(&mut convert_cmd(&source, &dests[0]));
    let expected = pack_names(&dests[0]);
    assert_eq!(expected.len(), 2);
    for (spec, dest) in specs.into_iter().zip(&dests[1..]) {
        convert_killed_at(&source, dest, spec);
        run_ok(&mut convert_cmd(&source, dest));
        assert_eq!(pack_names(dest), expected, "killed at {spec}");
        assert_eq!(rehash_export_text(dest), rehash_export_text(&dests[0]));
    }
}

#[test]
fn a_damaged_segment_is_refused_by_name() {
    let source = make_source("finish-damaged");
    let dest = scratch_dir("finish-damaged-run").join("dest.git");
    convert_killed_at(&source, &dest, "committed:4");
    // Every pack there: the committed segments, and any renamed in but not
    // committed (a leftover the run deletes unread).
    let segments = pack_files(&dest);
    for segment in &segments {
        let mut bytes = std::fs::read(segment).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x40;
        std::fs::write(segment, bytes).unwrap();
    }
    let out = convert_cmd(&source, &dest).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let named = segments
        .iter()
        .any(|s| stderr.contains(&*s.file_stem().unwrap().to_string_lossy()));
    assert!(named && stderr.contains("damaged"), "{stderr}");
    assert!(!dest.join("config").exists(), "DEST must not look complete");
}

#[test]
fn incremental_runs_add_one_pack_each_and_repack_folds_them() {
    let source = make_source("finish-incremental");
    let dest = scratch_dir("finish-incremental-run").join("dest.git");
    run_ok(&mut convert_cmd(&source, &dest));
    assert_ready_to_serve(&dest, &source);
    for (round, start) in [(1, 12), (2, 16)] {
        fast_import(
            &source,
            &history("main", start, 4, Some("refs/heads/main^0"), None),
        );
        run_ok(&mut convert_cmd(&source, &dest));
        assert_eq!(pack_names(&dest).len(), 1 + round, "after round {round}");
        // git answers from the first pack's bitmap and walks the others.
        assert_eq!(
            git(
                &dest,
                &["rev-list", "--use-bitmap-index", "--count", "--all"]
            ),
            git(&source, &["rev-list", "--count", "--all"])
        );
    }
    let map = rehash_export_text(&dest);
    // Killed after its pack is renamed in, or after the journal records
    // it: DEST stays a repository, and the next repack ends the work.
    for spec in ["folded:1", "fold-recorded:1"] {
        let out = rehash_command()
            .arg("repack")
            .arg(&dest)
            .env("GIT_REHASH_TEST_KILL_AT", spec)
            .output()
            .unwrap();
        assert!(out.status.code().is_none(), "{spec} did not fire: {out:?}");
        let fsck = git_output(&dest, &["fsck", "--strict", "--no-dangling"]);
        assert!(fsck.status.success(), "killed at {spec}: {fsck:?}");
    }
    // The fold was recorded: this run deletes the packs it replaced.
    run_ok(rehash_command().arg("repack").arg(&dest));
    assert_ready_to_serve(&dest, &source);
    assert_eq!(rehash_export_text(&dest), map, "repacking changed the map");
    let fsck = git_output(&dest, &["fsck", "--strict", "--no-dangling"]);
    assert!(fsck.status.success(), "{fsck:?}");
    rehash_verify_ok(&dest, &source);
    // Nothing left to fold; a later run still converts only what is new.
    let again = run_ok(rehash_command().arg("repack").arg(&dest));
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to repack"));
    fast_import(
        &source,
        &history("main", 20, 2, Some("refs/heads/main^0"), None),
    );
    run_ok(&mut convert_cmd(&source, &dest));
    assert_eq!(pack_names(&dest).len(), 2);
    let out = run_ok(rehash_command().arg("repack").arg(&dest));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("2 packs -> 1 pack"), "{stderr}");
    assert_ready_to_serve(&dest, &source);
    rehash_verify_ok(&dest, &source);
}

#[test]
fn without_git_on_path_dest_still_gets_its_bitmap_and_commit_graph() {
    let source = make_source("finish-no-git");
    let dest = scratch_dir("finish-no-git-run").join("dest.git");
    let empty = scratch_dir("finish-no-git-path");
    run_ok(convert_cmd(&source, &dest).env("PATH", &empty));
    assert_ready_to_serve(&dest, &source);
}
