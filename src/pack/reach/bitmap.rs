//! The `.bitmap` file of a pack (gitformat-bitmap(5), version 1): the
//! header (flag FULL_DAG only: the pack holds the closure of its commits),
//! four type bitmaps (commits, trees, blobs, tags), one entry per selected
//! commit (its position in the idx, the entry it is XOR-ed with if any, its
//! EWAH bitmap), and the trailing checksum; no optional section.

use std::collections::VecDeque;

use super::ewah::Ewah;
use super::graph::Graph;
use crate::object::ObjectKind;
use crate::pack::data::resolve::Pack;
use crate::pack::hashfile::file_checksum;

/// How many earlier entries a bitmap may be XOR-ed with (git reads up to
/// 160 back; its writer also tries 10).
const XOR_WINDOW: usize = 10;

/// The only flag written: the pack holds the closure of its commits
/// (required by every reader).
const FULL_DAG: u16 = 1;

/// The file's bytes, from the bitmaps built for `built` (commit position,
/// bitmap), in build order.
pub fn serialize(pack: &Pack, graph: &Graph, built: &[(u32, Ewah)]) -> Vec<u8> {
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
    let trailer = file_checksum(pack.idx.hash_kind(), &out);
    out.extend_from_slice(trailer.as_bytes());
    out
}
