//! What a server needs beside the pack: a commit-graph (`git log`, merge
//! bases and reachability walks without inflating commits) and a
//! reachability bitmap (`git clone` and `git fetch` count objects without
//! walking trees). Both are written by the installed git, on DEST once it
//! is a repository: `git commit-graph write --reachable` and
//! `git multi-pack-index write --bitmap`. git's writers are the reference
//! for these formats, their cost is small next to a conversion, and a
//! multi-pack bitmap stays valid when a later incremental run adds a pack.
//!
//! They are an optimisation: DEST is complete without them, and git reads
//! it the same way. Without git on PATH they are skipped, and the outcome
//! says so; a failure of git is an error that names the command, and the
//! next run (or the command itself, by hand) writes them again.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::convert::ConvertError;
use crate::progress::Progress;
use crate::repo::dest_layout;

/// The serving indexes of a finished DEST.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ServingIndexes {
    /// Written by this run: commit-graph, then the bitmap.
    Written {
        commit_graph: Duration,
        bitmap: Duration,
    },
    /// Already there, and this run changed no pack.
    #[default]
    Current,
    /// git is not on PATH: DEST has neither.
    NoGit,
}

/// Whether DEST has both indexes already.
pub fn present(dest: &Path) -> bool {
    dest_layout::commit_graph(dest).is_file() && dest_layout::multi_pack_index(dest).is_file()
}

/// Writes DEST's commit-graph and bitmap with the installed git.
pub fn write(dest: &Path, progress: &dyn Progress) -> Result<ServingIndexes, ConvertError> {
    if !git_available() {
        return Ok(ServingIndexes::NoGit);
    }
    progress.start("writing commit-graph", None);
    let started = Instant::now();
    run_git(
        dest,
        &["commit-graph", "write", "--reachable", "--no-progress"],
    )?;
    let commit_graph = started.elapsed();
    progress.finish();
    progress.start("writing reachability bitmap", None);
    let started = Instant::now();
    run_git(
        dest,
        &["multi-pack-index", "write", "--bitmap", "--no-progress"],
    )?;
    let bitmap = started.elapsed();
    progress.finish();
    Ok(ServingIndexes::Written {
        commit_graph,
        bitmap,
    })
}

/// Removes the multi-pack index and its bitmap, before the packs they
/// name are replaced: git must never find an index naming a missing pack.
pub fn remove_bitmap(dest: &Path) -> Result<(), ConvertError> {
    let dir = dest_layout::pack_dir(dest);
    for entry in std::fs::read_dir(&dir).map_err(|e| ConvertError::io(&dir, e))? {
        let path = entry.map_err(|e| ConvertError::io(&dir, e))?.path();
        let name = path.file_name().and_then(OsStr::to_str).unwrap_or_default();
        if name.starts_with("multi-pack-index") {
            std::fs::remove_file(&path).map_err(|e| ConvertError::io(&path, e))?;
        }
    }
    crate::durable::sync_dir(&dir)?;
    Ok(())
}

fn git_available() -> bool {
    Command::new("git")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `git ARGS` on the bare repository DEST, with no environment
/// variable of a surrounding git (a hook, `git rehash`) steering it
/// elsewhere.
fn run_git(dest: &Path, args: &[&str]) -> Result<(), ConvertError> {
    let mut command = Command::new("git");
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_INDEX_FILE",
    ] {
        command.env_remove(var);
    }
    command.env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES");
    let output = command
        .arg("--git-dir")
        .arg(dest)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| ConvertError::io(dest, e))?;
    if output.status.success() {
        return Ok(());
    }
    Err(ConvertError::ServingIndex {
        dest: dest.to_path_buf(),
        command: format!("git --git-dir {} {}", dest.display(), args.join(" ")),
        detail: String::from_utf8_lossy(&output.stderr).trim().to_string(),
    })
}
