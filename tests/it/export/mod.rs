//! `git-rehash export-sha1 DEST MIRROR`: the history of a converted
//! repository written back into a SHA-1 mirror. git is the oracle: in a
//! DEST converted with `--git-compat-map`, git records the SHA-1 name of
//! every object it makes there (`objects/loose-object-idx`), and the export
//! must give each exactly that name (`oracle.rs`). Also: an export into an
//! empty repository reproduces SOURCE (`empty_mirror.rs`), kills at every
//! step end like an uninterrupted run (`resume.rs`), both sides gaining
//! commits is refused (`diverged.rs`), gitlinks need a map
//! (`gitlinks.rs`), re-keyed notes map back (`notes.rs`), and a damaged
//! DEST is named (`corrupt.rs`).

mod corrupt;
mod diverged;
mod empty_mirror;
mod gitlinks;
mod notes;
mod oracle;
mod resume;
mod selection;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::git::git;
use crate::support::history::{commit_file, history_with_topic};
use crate::support::rehash::{rehash_command, rehash_convert_ok, rehash_export_text};
use crate::support::repo_files::all_objects;
use crate::support::scratch::scratch_dir;

/// A SHA-1 SOURCE, its conversion DEST, and a work tree of DEST in which
/// new history is made with git.
pub struct Scene {
    pub root: PathBuf,
    pub source: PathBuf,
    pub dest: PathBuf,
    pub work: PathBuf,
}

/// SOURCE: a history worth deltifying, a side branch `topic`, a branch
/// `old`, tags, a note; converted with `convert --quiet` and `flags` into
/// DEST, which gets a work tree on `main`.
pub fn scene(label: &str, flags: &[&str]) -> Scene {
    let root = scratch_dir(label);
    let source = root.join("src");
    history_with_topic(&source);
    git(&source, &["checkout", "-q", "-b", "old", "HEAD~1"]);
    commit_file(&source, "old.txt", "old\n", "old work");
    git(&source, &["checkout", "-q", "main"]);
    git(&source, &["tag", "light", "HEAD~5"]);
    git(
        &source,
        &["notes", "add", "-m", "a note from SOURCE", "HEAD~2"],
    );
    let dest = root.join("dest.git");
    let mut flags = flags.to_vec();
    flags.push("--quiet");
    rehash_convert_ok(&source, &dest, &flags);
    let work = root.join("work");
    git(
        &dest,
        &["worktree", "add", "-q", work.to_str().unwrap(), "main"],
    );
    Scene {
        root,
        source,
        dest,
        work,
    }
}

/// A bare clone of SOURCE: the SHA-1 mirror as it was at the move.
pub fn clone_mirror(scene: &Scene, name: &str) -> PathBuf {
    let mirror = scene.root.join(name);
    git(
        &scene.root,
        &[
            "clone",
            "-q",
            "--mirror",
            scene.source.to_str().unwrap(),
            mirror.to_str().unwrap(),
        ],
    );
    mirror
}

/// An empty bare SHA-1 repository.
pub fn empty_mirror(dir: &Path) -> PathBuf {
    let mirror = dir.join("mirror.git");
    std::fs::create_dir_all(&mirror).unwrap();
    git(&mirror, &["init", "-q", "--bare", "--object-format=sha1"]);
    mirror
}

/// `git-rehash export-sha1 [extra] DEST MIRROR`.
pub fn export_cmd(dest: &Path, mirror: &Path, extra: &[&str]) -> Command {
    let mut cmd = rehash_command();
    cmd.arg("export-sha1").args(extra).arg(dest).arg(mirror);
    cmd
}

/// Runs the export, which must succeed; returns its stderr (the summary).
pub fn export_ok(dest: &Path, mirror: &Path, extra: &[&str]) -> String {
    let out = export_cmd(dest, mirror, extra).output().unwrap();
    assert!(
        out.status.success(),
        "export-sha1 failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs the export, which must fail with status 1; returns its stderr.
pub fn export_refused(dest: &Path, mirror: &Path, extra: &[&str]) -> String {
    let out: Output = export_cmd(dest, mirror, extra).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "export-sha1 did not fail: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// What must be the same between two exports: MIRROR's refs, HEAD and
/// objects, and DEST's map.
#[derive(Debug, PartialEq, Eq)]
pub struct Exported {
    pub refs: String,
    pub head: String,
    pub objects: BTreeMap<String, String>,
    pub map: String,
}

pub fn exported(dest: &Path, mirror: &Path) -> Exported {
    Exported {
        refs: refs(mirror),
        head: git(mirror, &["symbolic-ref", "HEAD"]),
        objects: all_objects(mirror),
        map: rehash_export_text(dest),
    }
}

/// Every ref with its value and peeled value.
pub fn refs(repo: &Path) -> String {
    git(
        repo,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname) %(*objectname)",
        ],
    )
}

pub use crate::support::git::assert_fsck;

/// Whether `dir` holds nothing (a missing directory holds nothing).
pub fn dir_is_empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).map_or(true, |mut entries| entries.next().is_none())
}
