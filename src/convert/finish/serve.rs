//! What a server needs beside the pack: a reachability bitmap (`git clone`
//! and `git fetch` count objects without walking trees) and a commit-graph
//! (`git log`, merge bases and reachability walks without inflating
//! commits).
//!
//! The bitmap is written here (`pack::bitmap`), in parallel over the pack,
//! before DEST is published: once DEST is a repository its one pack has
//! its bitmap. A DEST with several packs (incremental runs) keeps the
//! bitmap of its first; `git-rehash repack` writes one for the folded pack.
//! The commit-graph is written by the installed git once DEST is a
//! repository (`git commit-graph write --reachable`). Both are an
//! optimisation: git reads DEST the same way without them. Without git on
//! PATH the commit-graph is skipped and the outcome says so; a failure of
//! git is an error that names the command, and the next run writes it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::convert::ConvertError;
use crate::convert::error::DestState;
use crate::hash::{HashKind, ObjectId};
use crate::idmap::IdMap;
use crate::pack::Pack;
use crate::pack::bitmap::{BitmapSummary, write_bitmap};
use crate::progress::Progress;
use crate::repo::dest_layout;

/// DEST's serving indexes after a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServingIndexes {
    /// The bitmap this run wrote, and the time it took.
    pub bitmap: Option<(BitmapSummary, Duration)>,
    pub commit_graph: CommitGraph,
}

/// What became of the commit-graph.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CommitGraph {
    /// Written by this run, in this time.
    Written(Duration),
    /// Already there, and this run changed no pack.
    #[default]
    Current,
    /// git is not on PATH: DEST has none.
    NoGit,
}

/// Writes the bitmap of DEST's pack when DEST has exactly one and it has
/// none yet. `tips` are the ref values to favour (SHA-256 names).
pub fn write_pack_bitmap(
    dest: &Path,
    map: &IdMap,
    tips: &[ObjectId],
    progress: &dyn Progress,
) -> Result<Option<(BitmapSummary, Duration)>, ConvertError> {
    let packs = map.folded_packs()?;
    let [only] = packs.as_slice() else {
        return Ok(None);
    };
    let idx = dest_layout::pack_dir(dest).join(format!("{only}.idx"));
    if idx.with_extension("bitmap").is_file() {
        return Ok(None);
    }
    let started = Instant::now();
    let damaged = |e: &dyn std::fmt::Display| DestState::Damaged {
        path: dest.to_path_buf(),
        reason: format!("pack {only} cannot be read back ({e})"),
    };
    let pack = Pack::open(&idx, HashKind::Sha256).map_err(|e| damaged(&e))?;
    let summary = write_bitmap(&pack, &idx, tips, progress).map_err(|e| damaged(&e))?;
    Ok(Some((summary, started.elapsed())))
}

/// Whether DEST's commit-graph exists and is newer than every pack (a
/// run killed after adding a pack, before writing the commit-graph, left
/// one that lacks the newest commits).
pub fn commit_graph_is_current(dest: &Path) -> bool {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let Some(graph) = modified(&dest_layout::commit_graph(dest)) else {
        return false;
    };
    let Ok(entries) = std::fs::read_dir(dest_layout::pack_dir(dest)) else {
        return false;
    };
    entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "pack"))
        .all(|e| modified(&e.path()).is_some_and(|pack| pack <= graph))
}

/// Writes DEST's commit-graph with the installed git.
pub fn write_commit_graph(
    dest: &Path,
    progress: &dyn Progress,
) -> Result<CommitGraph, ConvertError> {
    if !git_available() {
        return Ok(CommitGraph::NoGit);
    }
    progress.start("writing commit-graph", None);
    let started = Instant::now();
    run_git(
        dest,
        &["commit-graph", "write", "--reachable", "--no-progress"],
    )?;
    progress.finish();
    Ok(CommitGraph::Written(started.elapsed()))
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
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    ] {
        command.env_remove(var);
    }
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
