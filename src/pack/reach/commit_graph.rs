//! The `commit-graph` file (gitformat-commit-graph(5), version 1, no base
//! graphs): every commit of the pack sorted by name, with its tree, its
//! parents as positions in that order, its topological level and its
//! committer time, plus corrected commit dates (generation version 2)
//! when they all fit 31 bits. Bloom filters of changed paths are not
//! written; git computes them on demand.

use std::io::{self, Write};

use super::graph::Graph;
use crate::object::ObjectKind;
use crate::pack::data::resolve::Pack;

const NO_PARENT: u32 = 0x7000_0000;
const EXTRA_EDGES: u32 = 0x8000_0000;
const MAX_LEVEL: u32 = 0x3FFF_FFFF;
const MAX_TIME: i64 = (1 << 34) - 1;
const MAX_OFFSET: i64 = 0x7FFF_FFFF;

/// Writes the commit-graph of every commit of `pack`, all but its
/// checksum (`out` adds that); `levels` are the topological levels by pack
/// position (`build::generations`). Returns how many commits it holds.
pub fn write(out: &mut impl Write, pack: &Pack, graph: &Graph, levels: &[u32]) -> io::Result<u32> {
    let (chunks, commits) = chunks(pack, graph, levels);
    out.write_all(b"CGPH")?;
    // Version 1, the hash version (git's `oid_version`), the chunk count,
    // no base graphs.
    let hash_version = pack.idx.hash_kind().format_id() as u8;
    out.write_all(&[1, hash_version, chunks.len() as u8, 0])?;
    let mut offset = (8 + 12 * (chunks.len() + 1)) as u64;
    for (id, body) in &chunks {
        out.write_all(*id)?;
        out.write_all(&offset.to_be_bytes())?;
        offset += body.len() as u64;
    }
    out.write_all(&[0; 4])?;
    out.write_all(&offset.to_be_bytes())?;
    for (_, body) in &chunks {
        out.write_all(body)?;
    }
    Ok(commits)
}

/// A chunk's id and its bytes.
type Chunk = (&'static [u8; 4], Vec<u8>);

/// The chunks of the commit-graph of `pack`, in file order, and the
/// number of commits they describe.
fn chunks(pack: &Pack, graph: &Graph, levels: &[u32]) -> (Vec<Chunk>, u32) {
    // Commits in name order: the idx's order.
    let commits: Vec<u32> = (0..graph.len())
        .map(|index| graph.position_of_index[index])
        .filter(|&p| graph.kinds[p as usize] == ObjectKind::Commit)
        .collect();
    let mut slot = vec![u32::MAX; graph.len()];
    for (k, &p) in commits.iter().enumerate() {
        slot[p as usize] = k as u32;
    }
    let name = |p: u32| pack.idx.oid_at(graph.index_of_position[p as usize]);
    let time = |p: u32| graph.commit_time[p as usize].clamp(0, MAX_TIME);

    let mut fanout = [0u32; 256];
    let mut names = Vec::with_capacity(commits.len() * 32);
    for &p in &commits {
        let id = name(p);
        fanout[id.as_bytes()[0] as usize] += 1;
        names.extend_from_slice(id.as_bytes());
    }
    for b in 1..256 {
        fanout[b] += fanout[b - 1];
    }
    let mut data = Vec::new();
    let mut edges: Vec<u32> = Vec::new();
    for &p in &commits {
        let tree = graph
            .children(p)
            .iter()
            .copied()
            .find(|&c| graph.kinds[c as usize] == ObjectKind::Tree)
            .expect("a commit names its tree");
        data.extend_from_slice(name(tree).as_bytes());
        let parents: Vec<u32> = graph.parents(p).map(|q| slot[q as usize]).collect();
        let (first, second) = match parents.as_slice() {
            [] => (NO_PARENT, NO_PARENT),
            [one] => (*one, NO_PARENT),
            [one, two] => (*one, *two),
            [one, rest @ ..] => {
                let at = edges.len() as u32 | EXTRA_EDGES;
                edges.extend_from_slice(rest);
                *edges.last_mut().expect("two or more") |= EXTRA_EDGES;
                (*one, at)
            }
        };
        data.extend_from_slice(&first.to_be_bytes());
        data.extend_from_slice(&second.to_be_bytes());
        let level = levels[p as usize].min(MAX_LEVEL);
        let t = time(p) as u64;
        data.extend_from_slice(&((level << 2) | (t >> 32) as u32).to_be_bytes());
        data.extend_from_slice(&(t as u32).to_be_bytes());
    }
    let offsets = corrected_date_offsets(graph, levels, &commits, &slot);

    let mut chunks: Vec<Chunk> = vec![
        (
            b"OIDF",
            fanout.iter().flat_map(|f| f.to_be_bytes()).collect(),
        ),
        (b"OIDL", names),
        (b"CDAT", data),
    ];
    if let Some(offsets) = offsets {
        chunks.push((
            b"GDA2",
            offsets.iter().flat_map(|o| o.to_be_bytes()).collect(),
        ));
    }
    if !edges.is_empty() {
        chunks.push((
            b"EDGE",
            edges.iter().flat_map(|e| e.to_be_bytes()).collect(),
        ));
    }
    (chunks, commits.len() as u32)
}

/// Each commit's corrected commit date (the largest of its committer time
/// and one more than each parent's corrected date) less its committer
/// time, in graph order; `None` when one does not fit 31 bits (git then
/// needs an overflow chunk; without either it uses topological levels).
fn corrected_date_offsets(
    graph: &Graph,
    levels: &[u32],
    commits: &[u32],
    slot: &[u32],
) -> Option<Vec<u32>> {
    let mut by_level = commits.to_vec();
    by_level.sort_by_key(|&p| levels[p as usize]);
    let mut corrected = vec![0i64; commits.len()];
    for &p in &by_level {
        let own = graph.commit_time[p as usize].clamp(0, MAX_TIME);
        let date = graph
            .parents(p)
            .map(|q| corrected[slot[q as usize] as usize] + 1)
            .fold(own, i64::max);
        corrected[slot[p as usize] as usize] = date;
    }
    commits
        .iter()
        .zip(&corrected)
        .map(|(&p, &date)| {
            let offset = date - graph.commit_time[p as usize].clamp(0, MAX_TIME);
            (offset <= MAX_OFFSET).then_some(offset as u32)
        })
        .collect()
}
