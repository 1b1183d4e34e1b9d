//! SOURCE repositories git-rehash cannot convert (shallow or partial
//! clones, alternates that are gone, SHA-256 already) or that are not repositories at
//! all. Each ends in exit 1 with a message naming the path and what to do;
//! SOURCE stays byte-identical.

use crate::support::git::git;
use crate::support::refusal::{USAGE, assert_clean_exit};
use crate::support::rehash::rehash_convert;
use crate::support::scratch::scratch_dir;
use crate::support::watched_source::{Source, small_repo};

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
    let pack = source.repack();
    std::fs::write(pack.with_extension("promisor"), b"").unwrap();
    let (dest, _) = source.converts(&["--quiet"]);
    git(&dest, &["fsck", "--strict"]);
}

#[test]
fn an_alternate_that_is_gone_is_refused_naming_the_file_and_the_entry() {
    let mut source = small_repo("alternates-gone");
    let file = source.git_dir.join("objects/info/alternates");
    let gone = scratch_dir("alternates-gone-pool").join("pool.git/objects");
    std::fs::write(&file, format!("# the pool\n{}\n", gone.display())).unwrap();
    source.refused(&[
        &file.display().to_string(),
        &gone.display().to_string(),
        "not a directory",
        "fix or remove the line",
    ]);
}

#[test]
fn source_that_does_not_exist() {
    let missing = scratch_dir("no-source").join("nothing-here");
    let dest = scratch_dir("hostile-dest").join("dest.git");
    let out = rehash_convert(&missing, &dest, &["--quiet"]);
    assert_clean_exit(
        &out,
        USAGE,
        &[&missing.display().to_string(), "does not exist"],
    );
    assert!(!dest.exists());
}

#[test]
fn source_that_is_not_a_repository() {
    let dir = scratch_dir("not-a-repo");
    std::fs::write(dir.join("README"), b"just a file\n").unwrap();
    let mut source = Source::at(dir.clone());
    let dest = scratch_dir("not-a-repo-dest").join("dest.git");
    source.stopped_into(
        &dest,
        &[],
        USAGE,
        &[&format!("{} is not a git repository", dir.display())],
    );
}
