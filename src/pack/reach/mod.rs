//! Reachability indexes of a pack that holds a whole repository: its
//! `.bitmap` (for selected commits, every object they reach, so `git
//! clone`, `git fetch` and `rev-list --use-bitmap-index` count objects
//! without walking trees) and the repository's `commit-graph` (every
//! commit's tree, parents, generation and date, so history walks need not
//! inflate commits). Both come from one read of the pack's commits and
//! trees (`graph.rs`).

mod bitmap;
mod build;
mod commit_graph;
mod error;
mod ewah;
mod graph;
mod select;

use std::path::Path;

use crate::hash::ObjectId;
use crate::object::ObjectKind;
use crate::pack::data::resolve::Pack;
use crate::pack::hashfile::write_checksummed_file;
use crate::progress::Progress;
pub use error::ReachError;
use graph::Graph;
pub use graph::{Known, committer_time, followed_by_walk};

/// What the indexes hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReachSummary {
    /// Commits with a bitmap.
    pub bitmap_commits: u32,
    pub bitmap_bytes: u64,
    /// Commits in the commit-graph.
    pub graph_commits: u32,
}

/// Where the indexes go, and what they favour.
pub struct ReachTargets<'a> {
    /// The pack's index; the bitmap is written beside it.
    pub idx_path: &'a Path,
    pub commit_graph: &'a Path,
    /// Ref values (tags are peeled): their commits get bitmaps first.
    pub tips: &'a [ObjectId],
}

/// Writes the commit-graph of the pack's commits, then the pack's bitmap,
/// each durably. What `known` answers for is not read from the pack.
pub fn write_reach_indexes(
    pack: &Pack,
    targets: &ReachTargets<'_>,
    known: Option<&Known<'_>>,
    progress: &dyn Progress,
) -> Result<ReachSummary, ReachError> {
    let ReachTargets {
        idx_path,
        commit_graph,
        tips,
    } = *targets;
    progress.start("reading commits and trees", None);
    let graph = Graph::of_pack(pack, known)?;
    progress.finish();
    let generations = build::generations(&graph);
    let mut is_tip = vec![false; graph.len()];
    for tip in tips {
        if let Some(commit) = peel(pack, &graph, tip) {
            is_tip[commit as usize] = true;
        }
    }
    let selected = select::select(&graph, &is_tip);
    progress.start("building reachability bitmaps", Some(selected.len() as u64));
    let built = build::build(&graph, &generations, &selected, || progress.advance(1));
    progress.finish();
    // The commit-graph first: the bitmap's presence is what tells a later
    // run that both are written.
    let hash = pack.idx.hash_kind();
    let mut graph_commits = 0;
    write_checksummed_file(commit_graph, hash, |out| {
        graph_commits = commit_graph::write(out, pack, &graph, &generations)?;
        Ok(())
    })?;
    let bitmap_path = idx_path.with_extension("bitmap");
    let (_, bitmap_bytes) = write_checksummed_file(&bitmap_path, hash, |out| {
        bitmap::write(out, pack, &graph, &built)
    })?;
    Ok(ReachSummary {
        bitmap_commits: built.len() as u32,
        bitmap_bytes,
        graph_commits,
    })
}

/// The commit a ref value leads to through tags, if the pack holds it.
fn peel(pack: &Pack, graph: &Graph, id: &ObjectId) -> Option<u32> {
    let mut at = graph.position_of_index[pack.idx.lookup(id)? as usize];
    for _ in 0..64 {
        match graph.kinds[at as usize] {
            ObjectKind::Commit => return Some(at),
            ObjectKind::Tag => at = *graph.children(at).first()?,
            _ => return None,
        }
    }
    None
}
