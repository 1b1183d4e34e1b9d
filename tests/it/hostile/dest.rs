//! DEST mistakes and failures while writing DEST: inside SOURCE, not
//! ours, locked by a running conversion, raced for, read-only, or on a
//! full disk. Each ends with the exit status of its class (2 for a DEST
//! the command should not have named, 3 for a lock or a full disk, which
//! a later run gets past) and a message naming the path and what to do;
//! SOURCE stays byte-identical and DEST never looks complete.
//!
//! The read-only and disk-full cases mount a small tmpfs
//! (`support::tmpfs`); where that is not permitted they say so and pass
//! without checking.

use std::process::Stdio;

use crate::support::git::git;
use crate::support::noise::noise;
use crate::support::refusal::{FAILED, USAGE};
use crate::support::rehash::rehash_command;
use crate::support::repo_files::dir_names;
use crate::support::scratch::scratch_dir;
use crate::support::tmpfs::Mount;
use crate::support::watched_source::small_repo;

#[test]
fn dest_inside_source_is_refused() {
    let mut source = small_repo("dest-inside");
    let dest = source.path.join("converted.git");
    source.stopped_into(&dest, &[], USAGE, &["is inside the source repository"]);
    assert!(!dest.exists());
    let dest = source.git_dir.join("objects/sha256");
    source.stopped_into(&dest, &[], USAGE, &["is inside the source repository"]);
}

#[test]
fn dest_that_exists_and_is_not_ours() {
    let mut source = small_repo("dest-foreign");
    let dest = scratch_dir("dest-foreign").join("dest");
    std::fs::create_dir_all(&dest).unwrap();
    std::fs::write(dest.join("precious.txt"), b"keep me\n").unwrap();
    for extra in [&[][..], &["--force"][..]] {
        source.stopped_into(
            &dest,
            extra,
            USAGE,
            &[&dest.display().to_string(), "exists and is not empty"],
        );
        assert_eq!(
            std::fs::read(dest.join("precious.txt")).unwrap(),
            b"keep me\n"
        );
    }
}

#[test]
fn concurrent_convert_into_a_locked_dest_is_refused_naming_the_lock() {
    // What a running conversion holds in DEST: its skeleton and its lock
    // file, locked with flock (this test process stands in for it).
    let mut source = small_repo("dest-locked");
    let dest = scratch_dir("dest-locked").join("dest.git");
    std::fs::create_dir_all(dest.join("rehash")).unwrap();
    std::fs::create_dir_all(dest.join("objects/pack")).unwrap();
    let lock = dest.join("rehash/convert.lock");
    let held = std::fs::File::create(&lock).unwrap();
    held.lock().expect("flock the lock file");
    for extra in [&[][..], &["--force"][..]] {
        source.stopped_into(
            &dest,
            extra,
            FAILED,
            &["another git-rehash", "lock file", "convert.lock"],
        );
        // --force must not delete a DEST another process is writing.
        assert!(lock.exists(), "the running conversion keeps its lock");
    }
    drop(held);
}

#[test]
fn two_real_conversions_race_for_one_dest() {
    // Both start at once; exactly one may write DEST. The loser stops with
    // the lock message, or (if the winner had already finished) with "not
    // empty". Either way the winner's DEST is a complete repository.
    let source = small_repo("dest-race");
    let dest = scratch_dir("dest-race").join("dest.git");
    let spawn = || {
        rehash_command()
            .args(["convert", "--quiet"])
            .arg(&source.path)
            .arg(&dest)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn git-rehash")
    };
    let (a, b) = (spawn(), spawn());
    let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let ok = outs.iter().filter(|o| o.status.success()).count();
    assert!(ok <= 1, "at most one conversion can own DEST");
    for out in outs.iter().filter(|o| !o.status.success()) {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    if ok == 1 {
        git(&dest, &["fsck", "--strict"]);
    }
}

#[test]
fn read_only_dest_on_a_read_only_mount() {
    let Some(mount) = Mount::tmpfs("dest-ro", "size=1m,ro") else {
        return;
    };
    let mut source = small_repo("dest-ro");
    // DEST is the (empty) mount point itself, then a directory inside it.
    for dest in [mount.path().to_path_buf(), mount.path().join("dest.git")] {
        let stderr = source.stopped_into(&dest, &[], USAGE, &["on a read-only filesystem"]);
        assert!(
            stderr.contains(&mount.path().display().to_string()),
            "{stderr}"
        );
    }
}

#[test]
fn disk_full_while_writing_dest() {
    let Some(mount) = Mount::tmpfs("dest-full", "size=1m") else {
        return;
    };
    let mut source = small_repo("dest-full");
    std::fs::write(
        source.path.join("big.bin"),
        noise(3 << 20, 0x9e3779b97f4a7c15),
    )
    .unwrap();
    git(&source.path, &["add", "big.bin"]);
    git(&source.path, &["commit", "-q", "-m", "big"]);
    let dest = mount.path().join("dest.git");
    let stderr = source.stopped_into(
        &dest,
        &[],
        FAILED,
        &[&dest.display().to_string(), "No space left on device"],
    );
    assert!(stderr.contains("run the same command again"), "{stderr}");
    // Visibly incomplete: no config; the lock is released (the kernel drops
    // the flock with the process; the file stays); no temporary pack left.
    let lock = std::fs::File::open(dest.join("rehash/convert.lock")).unwrap();
    lock.try_lock().expect("no process holds the lock");
    drop(lock);
    let leftovers: Vec<_> = dir_names(&dest.join("objects/pack"))
        .into_iter()
        .filter(|n| n.starts_with("tmp_"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "temporary pack removed: {leftovers:?}"
    );
    // Running again resumes, and the full disk stops it the same way.
    source.stopped_into(&dest, &[], FAILED, &["No space left on device"]);
}
