//! What a server needs beside the pack: its reachability bitmap (`git
//! clone` and `git fetch` count objects without walking trees) and the
//! commit-graph (`git log`, merge bases and reachability walks without
//! inflating commits), both written from one read of the pack's commits
//! and trees (`pack::reach`), in parallel, before DEST is published: once
//! DEST is a repository, its one pack has both.
//!
//! A DEST with several packs (after incremental runs) keeps those of its
//! first pack, which stay valid (git uses them and walks the rest);
//! `git-rehash repack` folds the packs and writes both again.
//!
//! A DEST that shares a pool's objects (`--shared-with`) gets neither: its
//! pack lacks the pool's objects that its commits and trees reach, and
//! both files describe a closed set (git does not write a bitmap for such
//! a pack either). git finds the pool's commit-graph and bitmap through
//! the alternates file and walks the fork's few objects.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::known_edges::KnownEdges;
use crate::convert::error::ConvertError;
use crate::convert::source_objects::by_dest_name::ByDestName;
use crate::hash::{HashKind, ObjectId};
use crate::idmap::IdMap;
use crate::pack::reach::{ReachError, ReachSummary, ReachTargets, write_reach_indexes};
use crate::progress::Progress;
use crate::repo::dest_layout;

/// The index of the pack that needs its bitmap and commit-graph: DEST's
/// only pack, when it has no bitmap yet and DEST shares no pool's objects.
pub fn target(dest: &Path, map: &IdMap) -> Result<Option<PathBuf>, ConvertError> {
    if map.shared_with()?.is_some() {
        return Ok(None);
    }
    let packs = map.folded_packs()?;
    let [only] = packs.as_slice() else {
        return Ok(None);
    };
    let idx = dest_layout::pack_dir(dest).join(format!("{only}.idx"));
    Ok((!idx.with_extension("bitmap").is_file()).then_some(idx))
}

/// What the map pass recorded of the objects it translated
/// (`convert/reach_record.rs`), so that they need not be read back.
pub struct Recorded<'a> {
    pub records: &'a Path,
    pub names: &'a ByDestName<'a>,
}

/// Writes the commit-graph and the bitmap of the pack whose index is
/// `idx` (named in `hash`, DEST's). `tips` are the ref values to favour
/// (DEST names).
pub fn write(
    dest: &Path,
    (idx, hash): (&Path, HashKind),
    tips: &[ObjectId],
    recorded: Option<&Recorded<'_>>,
    progress: &dyn Progress,
) -> Result<(ReachSummary, Duration), ConvertError> {
    let started = Instant::now();
    let pack = super::open_pack(dest, idx, hash)?;
    let known = match recorded {
        Some(r) => {
            let by_offset = pack
                .entries_by_offset()
                .map_err(|e| super::damaged(dest, idx, &e))?;
            Some(KnownEdges::open(r.records, r.names, &pack, by_offset)?)
        }
        None => None,
    };
    let answer = |index: u32, children: &mut Vec<u32>| known.as_ref()?.node(index, children);
    let targets = ReachTargets {
        idx_path: idx,
        commit_graph: &dest_layout::commit_graph(dest),
        tips,
    };
    // A pack that cannot be read is DEST damaged; a file that cannot be
    // written (a full disk) is a failure of the machine, as for any write.
    let summary = write_reach_indexes(
        &pack,
        &targets,
        known.is_some().then_some(&answer),
        progress,
    )
    .map_err(|e| match e {
        ReachError::File(e) => ConvertError::File(e),
        unreadable => super::damaged(dest, idx, &unreadable),
    })?;
    Ok((summary, started.elapsed()))
}
