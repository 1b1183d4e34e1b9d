//! The `.bitmap` file of a pack (gitformat-bitmap(5), version 1): the
//! header (flag FULL_DAG only: the pack holds the closure of its commits),
//! four type bitmaps (commits, trees, blobs, tags), one entry per selected
//! commit (its position in the idx, the entry it is XOR-ed with if any, its
//! EWAH bitmap), and the trailing checksum; no optional section.

use std::collections::VecDeque;
use std::io::{self, Write};

use super::ewah::Ewah;
use super::graph::Graph;
use crate::object::ObjectKind;
use crate::pack::data::resolve::Pack;

/// How many earlier entries a bitmap may be XOR-ed with (git reads up to
/// 160 back; its writer also tries 10).
const XOR_WINDOW: usize = 10;

/// The only flag written: the pack holds the closure of its commits
/// (required by every reader).
const FULL_DAG: u16 = 1;

/// Writes the file, all but its checksum (`out` adds that), from the
/// bitmaps built for `built` (commit position, bitmap), in build order.
pub fn write(
    out: &mut impl Write,
    pack: &Pack,
    graph: &Graph,
    built: &[(u32, Ewah)],
) -> io::Result<()> {
    out.write_all(b"BITM")?;
    out.write_all(&1u16.to_be_bytes())?;
    out.write_all(&FULL_DAG.to_be_bytes())?;
    out.write_all(&(built.len() as u32).to_be_bytes())?;
    out.write_all(pack.data.checksum())?;
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
        Ewah::from_words(&dense).write_to(out)?;
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
        out.write_all(&graph.index_of_position[*commit as usize].to_be_bytes())?;
        // How many entries back the XOR base is (0: none), and no flags.
        out.write_all(&[best.0, 0])?;
        best.1.as_ref().unwrap_or(bitmap).write_to(out)?;
        if recent.len() == XOR_WINDOW {
            recent.pop_front();
        }
        recent.push_back(dense);
    }
    Ok(())
}
