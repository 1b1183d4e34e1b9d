//! Repository-level refusals: layouts git-rehash cannot convert, SOURCE
//! and DEST mistakes, and failures while writing DEST (read-only, disk
//! full, a concurrent run). Each ends in exit 1 with a message naming the
//! path and what to do; SOURCE stays byte-identical.
//!
//! The read-only and disk-full cases mount a small tmpfs (root is needed;
//! the tests run as root here and in CI). Where mounting is not permitted
//! they print a note and pass without checking: nothing is simulated.

mod common;
mod hostile_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::*;
use hostile_support::*;

#[test]
fn shallow_clone_is_refused_with_the_reason() {
    let origin = small_repo("shallow-origin");
    let clone = scratch_dir("shallow").join("clone");
    let url = format!("file://{}", origin.path.display());
    git(
        clone.parent().unwrap(),
        &["clone", "-q", "--depth", "1", &url, clone.to_str().unwrap()],
    );
    let mut source = Source::at(clone);
    source.refused(&[
        "is a shallow clone",
        "parents are absent",
        "git fetch --unshallow",
    ]);
}

#[test]
fn partial_clone_is_refused() {
    let mut source = small_repo("partial");
    git(
        &source.path,
        &["config", "core.repositoryformatversion", "1"],
    );
    git(
        &source.path,
        &["config", "extensions.partialclone", "origin"],
    );
    source.refused(&[
        "partial clone",
        "extensions.partialclone",
        "git fetch --refetch",
    ]);
}

#[test]
fn promisor_pack_without_partial_clone_config_is_just_a_pack() {
    let mut source = small_repo("promisor");
    git(&source.path, &["repack", "-adq"]);
    let pack = pack_files(&source.git_dir)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "pack"))
        .unwrap();
    std::fs::write(pack.with_extension("promisor"), b"").unwrap();
    let (dest, _) = source.converts(&["--quiet"]);
    git(&dest, &["fsck", "--strict"]);
}

#[test]
fn alternates_are_refused_naming_the_file() {
    let other = small_repo("alternates-other");
    let mut source = small_repo("alternates");
    let file = source.git_dir.join("objects/info/alternates");
    std::fs::write(
        &file,
        format!("{}\n", other.git_dir.join("objects").display()),
    )
    .unwrap();
    source.refused(&[
        &file.display().to_string(),
        "borrows objects",
        "git repack -a -d",
    ]);
}

#[test]
fn source_already_sha256_is_refused() {
    let dir = scratch_dir("sha256-source").join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "--object-format=sha256"]);
    let mut source = Source::at(dir);
    source.refused(&[
        "already uses object format sha256",
        "converts SHA-1 repositories",
    ]);
}

#[test]
fn source_that_does_not_exist() {
    let missing = scratch_dir("no-source").join("nothing-here");
    let dest = scratch_dir("hostile-dest").join("dest.git");
    let out = run_convert(&missing, &dest, &[]);
    assert_clean_failure(&out, &[&missing.display().to_string(), "No such file"]);
    assert!(!dest.exists());
}

#[test]
fn source_that_is_not_a_repository() {
    let dir = scratch_dir("not-a-repo");
    std::fs::write(dir.join("README"), b"just a file\n").unwrap();
    let mut source = Source::at(dir.clone());
    source.refused(&[&format!("{} is not a git repository", dir.display())]);
}

#[test]
fn dest_inside_source_is_refused() {
    let mut source = small_repo("dest-inside");
    let dest = source.path.join("converted.git");
    source.refused_into(&dest, &[], &["is inside the source repository"]);
    assert!(!dest.exists());
    let dest = source.git_dir.join("objects/sha256");
    source.refused_into(&dest, &[], &["is inside the source repository"]);
}

#[test]
fn dest_that_exists_and_is_not_ours() {
    let mut source = small_repo("dest-foreign");
    let dest = scratch_dir("dest-foreign").join("dest");
    std::fs::create_dir_all(&dest).unwrap();
    std::fs::write(dest.join("precious.txt"), b"keep me\n").unwrap();
    for extra in [&[][..], &["--force"][..]] {
        source.refused_into(
            &dest,
            extra,
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
        source.refused_into(
            &dest,
            extra,
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

// ------------------------------------------------------------------ mounts

/// A tmpfs mounted for the test, unmounted on drop.
struct Mount(PathBuf);

impl Mount {
    fn tmpfs(label: &str, options: &str) -> Option<Mount> {
        let dir = scratch_dir(label).join("mnt");
        std::fs::create_dir_all(&dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(&dir)
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            Some(Mount(dir))
        } else {
            eprintln!("note: cannot mount a tmpfs here (not root?); {label} not checked");
            None
        }
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
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
        let stderr = source.refused_into(&dest, &[], &["Read-only file system"]);
        assert!(
            stderr.contains(&mount.path().display().to_string()),
            "{stderr}"
        );
    }
}

/// Pseudo-random, incompressible bytes.
fn noise(n: usize, mut seed: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect()
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
    source.refused_into(
        &dest,
        &[],
        &[&dest.display().to_string(), "No space left on device"],
    );
    // Visibly incomplete: no config; the lock is released (the kernel drops
    // the flock with the process; the file stays); no temporary pack left.
    let lock = std::fs::File::open(dest.join("rehash/convert.lock")).unwrap();
    lock.try_lock().expect("no process holds the lock");
    drop(lock);
    let leftovers: Vec<_> = std::fs::read_dir(dest.join("objects/pack"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("tmp_"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "temporary pack removed: {leftovers:?}"
    );
    // Running again resumes, and the full disk stops it the same way.
    source.refused_into(&dest, &[], &["No space left on device"]);
}
