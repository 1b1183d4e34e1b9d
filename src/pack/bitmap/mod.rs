//! Writing a pack's reachability bitmap (`pack-<name>.bitmap`,
//! gitformat-bitmap(5), version 1): for selected commits, the set of every
//! object they reach, so `git clone`, `git fetch` and
//! `git rev-list --use-bitmap-index` count objects without walking trees.
//!
//! The pack must hold the closure of every commit in it (a repository's
//! one pack does). The file holds the header, four type bitmaps (commits,
//! trees, blobs, tags), one entry per selected commit (its position in the
//! idx, the entry it is XOR-ed with if any, its EWAH bitmap), and the
//! trailing checksum; no optional section.

mod build;
mod ewah;
mod graph;
mod select;

use std::collections::VecDeque;
use std::path::PathBuf;

use sha2::Digest;

use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;
use crate::object::ReferencesError;
use crate::pack::{Pack, PackError};
use crate::progress::Progress;
use ewah::Ewah;
use graph::Graph;

/// How many earlier entries a bitmap may be XOR-ed with (git reads up to
/// 160 back; its writer also tries 10).
const XOR_WINDOW: usize = 10;

/// The only flag written: the pack holds the closure of its commits
/// (required by every reader).
const FULL_DAG: u16 = 1;

/// Why a bitmap could not be written.
#[derive(Debug, thiserror::Error)]
pub enum BitmapError {
    #[error(transparent)]
    Read(#[from] PackError),
    #[error("object {id} cannot be read for the bitmap: {error}")]
    Malformed {
        id: ObjectId,
        #[source]
        error: ReferencesError,
    },
    #[error("object {id} reaches {missing}, which the pack does not hold: no bitmap can cover it")]
    NotClosed { id: ObjectId, missing: ObjectId },
    #[error(transparent)]
    File(#[from] crate::durable::PathError),
}

/// What a bitmap holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BitmapSummary {
    /// Commits with a bitmap.
    pub commits: u32,
    /// The file's size.
    pub bytes: u64,
}

/// Writes the bitmap of the pack whose index is `idx_path` beside it,
/// preferring the commits `tips` name (ref values; tags are peeled).
pub fn write_bitmap(
    pack: &Pack,
    idx_path: &std::path::Path,
    tips: &[ObjectId],
    progress: &dyn Progress,
) -> Result<BitmapSummary, BitmapError> {
    progress.start("reading commits and trees for the bitmap", None);
    let graph = Graph::of_pack(pack)?;
    progress.finish();
    let mut is_tip = vec![false; graph.len()];
    for tip in tips {
        if let Some(commit) = peel(pack, &graph, tip) {
            is_tip[commit as usize] = true;
        }
    }
    let selected = select::select(&graph, &is_tip);
    progress.start("building reachability bitmaps", Some(selected.len() as u64));
    let built = build::build(&graph, &selected, || progress.advance(1));
    progress.finish();

    let bytes = serialize(pack, &graph, &built);
    let path: PathBuf = idx_path.with_extension("bitmap");
    crate::durable::write_file(&path, &bytes)?;
    Ok(BitmapSummary {
        commits: built.len() as u32,
        bytes: bytes.len() as u64,
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

fn serialize(pack: &Pack, graph: &Graph, built: &[(u32, Ewah)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"BITM");
    out.extend_from_slice(&1u16.to_be_bytes());
    out.extend_from_slice(&FULL_DAG.to_be_bytes());
    out.extend_from_slice(&(built.len() as u32).to_be_bytes());
    out.extend_from_slice(pack.data.checksum());
    let words = graph.len().div_ceil(64);
    for kind in [
        ObjectKind::Commit,
        ObjectKind::Tree,
        ObjectKind::Blob,
        ObjectKind::Tag,
    ] {
        let mut dense = vec![0u64; words];
        for (p, _) in graph.kinds.iter().enumerate().filter(|(_, k)| **k == kind) {
            dense[p / 64] |= 1 << (p % 64);
        }
        Ewah::from_words(&dense).write_to(&mut out);
    }
    // Each bitmap is stored as it is or XOR-ed with one of the few before
    // it, whichever compresses smaller: neighbours in build order are
    // commits of nearby history, whose bitmaps differ in few words.
    let mut recent: VecDeque<Vec<u64>> = VecDeque::with_capacity(XOR_WINDOW);
    for (commit, bitmap) in built {
        let mut dense = vec![0u64; words];
        bitmap.or_into(&mut dense);
        let mut best = (0u8, None);
        let mut best_words = bitmap.compressed_words();
        for (back, earlier) in recent.iter().rev().enumerate() {
            let xored: Vec<u64> = dense.iter().zip(earlier).map(|(a, b)| a ^ b).collect();
            let candidate = Ewah::from_words(&xored);
            if candidate.compressed_words() < best_words {
                best_words = candidate.compressed_words();
                best = (back as u8 + 1, Some(candidate));
            }
        }
        out.extend_from_slice(&graph.index_of_position[*commit as usize].to_be_bytes());
        out.push(best.0); // how many entries back the XOR base is (0: none)
        out.push(0); // no flags
        best.1.as_ref().unwrap_or(bitmap).write_to(&mut out);
        if recent.len() == XOR_WINDOW {
            recent.pop_front();
        }
        recent.push_back(dense);
    }
    let trailer: Vec<u8> = match pack.idx.hash_kind() {
        HashKind::Sha256 => sha2::Sha256::digest(&out).to_vec(),
        HashKind::Sha1 => sha1::Sha1::digest(&out).to_vec(),
    };
    out.extend_from_slice(&trailer);
    out
}
