//! Decoding every object of a pack exactly once, in parallel over its delta
//! trees (git's index-pack `resolve_deltas()` threads; gitoxide's
//! `gix-pack/src/cache/delta/tree.rs`).
//!
//! Entries are sorted by offset and linked to their base: OFS_DELTA through
//! the base offset, REF_DELTA through this pack's index, or to an external
//! base. Each base is inflated once and its deltas applied while it is in
//! hand, walking down the tree. Siblings fan out over rayon; linear stretches
//! are followed in a loop, and below [`MAX_FAN_DEPTH`] nested fan-outs the
//! walk turns into an explicit stack, so neither deep chains nor deep trees
//! recurse without bound. A thread holds only the bodies on its current path.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::entry::EntryKind;
use super::resolve::{MAX_CHAIN_DEPTH, Pack};
use crate::hash::ObjectId;
use crate::object::ObjectKind;
use crate::pack::delta::apply::apply_delta;
use crate::pack::error::PackError;

/// [`super::resolve::ExternalBase`] callable from several threads.
pub type SharedExternalBase<'a> = dyn Fn(&ObjectId) -> Option<(ObjectKind, Vec<u8>)> + Sync + 'a;
/// The per-object callback of [`Pack::traverse`]:
/// `(index_in_idx, offset, kind, body)`.
pub type Visit<'a, E> = dyn Fn(u32, u64, ObjectKind, &[u8]) -> Result<(), E> + Sync + 'a;
/// [`Visit`] that also sees the delta base the object was just rebuilt on:
/// `(index_in_idx, offset, kind, body, base)`, `base` being the base's
/// index in the idx, offset and body (`None` for a base entry, and for a
/// REF_DELTA whose base is outside the pack).
pub type VisitOnBase<'a, E> =
    dyn Fn(u32, u64, ObjectKind, &[u8], Option<(u32, u64, &[u8])>) -> Result<(), E> + Sync + 'a;

/// Nested parallel fan-outs before a subtree is walked sequentially.
const MAX_FAN_DEPTH: u32 = 32;
/// Parent marker of a base entry.
const ROOT: u32 = u32::MAX;
/// Parent marker of a REF_DELTA whose base is not in this pack.
const EXTERNAL: u32 = u32::MAX - 1;

/// The delta forest of one pack, in offset order. Positions index `nodes`.
struct Forest<'p> {
    /// (offset, position in the index), sorted by offset: the pack's own.
    nodes: &'p [(u64, u32)],
    /// Children of position `p`: `children[child_start[p]..child_start[p + 1]]`.
    child_start: Vec<u32>,
    children: Vec<u32>,
    roots: Vec<u32>,
    /// REF_DELTAs grouped by their base outside the pack.
    external: Vec<(ObjectId, Vec<u32>)>,
}

impl Forest<'_> {
    fn children_of(&self, pos: u32) -> &[u32] {
        let p = pos as usize;
        &self.children[self.child_start[p] as usize..self.child_start[p + 1] as usize]
    }
}

/// Shared state of one traversal.
struct Walker<'a, E> {
    pack: &'a Pack,
    forest: &'a Forest<'a>,
    visit: &'a VisitOnBase<'a, E>,
    max_fan_depth: u32,
}

/// A pack's delta forest cut into batches of whole delta trees, so a
/// caller can decode a pack piece by piece and checkpoint between pieces.
///
/// A "unit" is one delta tree: a base entry with everything built on it,
/// or the REF_DELTAs on one base outside the pack. Units are taken in
/// offset order of their base, then external bases in id order, and cut
/// into batches by object count and compressed size, so the same pack
/// always gives the same batches.
pub struct TraversalPlan<'p> {
    forest: Forest<'p>,
    /// Every position, grouped by unit (each unit's tree in depth-first order).
    members: Vec<u32>,
    batches: Vec<Batch>,
    /// The batch of each entry, by its position in the idx.
    batch_of_index: Vec<u32>,
}

#[derive(Clone)]
struct Batch {
    /// Unit numbers: `< roots.len()` are roots, the rest external groups.
    units: std::ops::Range<usize>,
    /// This batch's slice of `members`.
    members: std::ops::Range<usize>,
}

/// How large a batch of a [`TraversalPlan`] may grow before it is closed.
#[derive(Clone, Copy, Debug)]
pub struct BatchLimits {
    pub objects: usize,
    pub compressed_bytes: u64,
}

impl BatchLimits {
    /// One batch for the whole pack.
    pub const WHOLE_PACK: BatchLimits = BatchLimits {
        objects: usize::MAX,
        compressed_bytes: u64::MAX,
    };
}

impl TraversalPlan<'_> {
    pub fn batch_count(&self) -> usize {
        self.batches.len()
    }

    /// The batch that decodes the entry at `index_in_idx`.
    pub fn batch_of(&self, index_in_idx: u32) -> usize {
        self.batch_of_index[index_in_idx as usize] as usize
    }

    /// The objects batch `batch` decodes: `(index_in_idx, offset)`.
    pub fn batch_objects(&self, batch: usize) -> impl Iterator<Item = (u32, u64)> + '_ {
        let b = &self.batches[batch];
        self.members[b.members.clone()].iter().map(|&pos| {
            let (offset, index) = self.forest.nodes[pos as usize];
            (index, offset)
        })
    }
}

impl Pack {
    /// Decodes every object of the pack exactly once, in parallel on the
    /// current rayon pool, calling `visit(index_in_idx, offset, kind, body)`
    /// for each (order unspecified, from several threads). REF_DELTA bases
    /// outside the pack come from `external`. Names are not verified here.
    pub fn traverse<E: From<PackError> + Send>(
        &self,
        external: &SharedExternalBase<'_>,
        visit: &Visit<'_, E>,
    ) -> Result<(), E> {
        let plan = self.plan_traversal(BatchLimits::WHOLE_PACK)?;
        let visit: &VisitOnBase<'_, E> =
            &|index, offset, kind, body, _| visit(index, offset, kind, body);
        (0..plan.batch_count())
            .try_for_each(|b| self.traverse_batch_limited(&plan, b, external, visit, MAX_FAN_DEPTH))
    }

    /// Like [`Pack::traverse`] for a pack with no external bases, but only
    /// the delta trees whose base entry is of a kind `wanted` accepts are
    /// decoded (a delta is of its base's kind): a walk of commits and
    /// trees never inflates a blob.
    pub fn traverse_kinds<E: From<PackError> + Send>(
        &self,
        wanted: &(dyn Fn(ObjectKind) -> bool + Sync),
        visit: &Visit<'_, E>,
    ) -> Result<(), E> {
        let plan = self.plan_traversal(BatchLimits::WHOLE_PACK)?;
        let forest = &plan.forest;
        let visit: &VisitOnBase<'_, E> =
            &|index, offset, kind, body, _| visit(index, offset, kind, body);
        let walker = Walker {
            pack: self,
            forest,
            visit,
            max_fan_depth: MAX_FAN_DEPTH,
        };
        let no_external: &SharedExternalBase<'_> = &|_| None;
        (0..forest.roots.len() + forest.external.len())
            .into_par_iter()
            .try_for_each(|unit| {
                if let Some(&pos) = forest.roots.get(unit) {
                    let entry = self.data.entry_at(forest.nodes[pos as usize].0)?;
                    if matches!(entry.kind, EntryKind::Base(kind) if !wanted(kind)) {
                        return Ok(());
                    }
                }
                self.traverse_unit(&walker, no_external, unit)
            })
    }

    /// Builds the delta forest and cuts it into batches within `limits`
    /// (a single delta tree larger than the limits is a batch of its own).
    pub fn plan_traversal(&self, limits: BatchLimits) -> Result<TraversalPlan<'_>, PackError> {
        let forest = self.build_forest()?;
        let n = forest.nodes.len();
        let data_end = self.data.data_end() as u64;
        let compressed = |pos: u32| {
            let p = pos as usize;
            let end = forest.nodes.get(p + 1).map_or(data_end, |next| next.0);
            end.saturating_sub(forest.nodes[p].0)
        };
        let units = forest.roots.len() + forest.external.len();
        let mut members = Vec::with_capacity(n);
        let mut batches = Vec::new();
        let (mut unit_start, mut member_start, mut bytes) = (0usize, 0usize, 0u64);
        let mut stack = Vec::new();
        for unit in 0..units {
            match forest.roots.get(unit) {
                Some(&root) => stack.push(root),
                None => stack.extend(&forest.external[unit - forest.roots.len()].1),
            }
            while let Some(pos) = stack.pop() {
                members.push(pos);
                bytes += compressed(pos);
                stack.extend(forest.children_of(pos));
            }
            if members.len() - member_start >= limits.objects || bytes >= limits.compressed_bytes {
                batches.push(Batch {
                    units: unit_start..unit + 1,
                    members: member_start..members.len(),
                });
                (unit_start, member_start, bytes) = (unit + 1, members.len(), 0);
            }
        }
        if unit_start < units {
            batches.push(Batch {
                units: unit_start..units,
                members: member_start..members.len(),
            });
        }
        let mut batch_of_index = vec![0u32; n];
        for (b, batch) in batches.iter().enumerate() {
            for &pos in &members[batch.members.clone()] {
                batch_of_index[forest.nodes[pos as usize].1 as usize] = b as u32;
            }
        }
        Ok(TraversalPlan {
            forest,
            members,
            batches,
            batch_of_index,
        })
    }

    /// Decodes the objects of one batch of `plan` (see [`Pack::traverse`])
    /// with a chosen fan-out depth (tests use 0 to exercise the sequential
    /// walk).
    fn traverse_batch_limited<E: From<PackError> + Send>(
        &self,
        plan: &TraversalPlan,
        batch: usize,
        external: &SharedExternalBase<'_>,
        visit: &VisitOnBase<'_, E>,
        max_fan_depth: u32,
    ) -> Result<(), E> {
        let forest = &plan.forest;
        let walker = Walker {
            pack: self,
            forest,
            visit,
            max_fan_depth,
        };
        let units = plan.batches[batch].units.clone();
        units
            .into_par_iter()
            .try_for_each(|unit| self.traverse_unit(&walker, external, unit))
    }

    /// Decodes the objects of several batches of `plan` (see
    /// [`Pack::traverse`]) as one parallel traversal, without waiting at
    /// the end of each batch for its last delta tree: a thread that runs
    /// out of work in one batch takes trees of the next. `batch_done(b)` is
    /// called once every object of batch `b` was visited, on the thread
    /// that visited the last one, while the others go on.
    pub fn traverse_batches<E: From<PackError> + Send>(
        &self,
        plan: &TraversalPlan,
        batches: &[usize],
        external: &SharedExternalBase<'_>,
        visit: &VisitOnBase<'_, E>,
        batch_done: &(dyn Fn(usize) -> Result<(), E> + Sync),
    ) -> Result<(), E> {
        let walker = Walker {
            pack: self,
            forest: &plan.forest,
            visit,
            max_fan_depth: MAX_FAN_DEPTH,
        };
        let pending: Vec<AtomicUsize> = plan
            .batches
            .iter()
            .map(|b| AtomicUsize::new(b.units.len()))
            .collect();
        let units: Vec<(usize, usize)> = batches
            .iter()
            .flat_map(|&b| plan.batches[b].units.clone().map(move |unit| (b, unit)))
            .collect();
        // Rayon splits a thread's share whenever another runs dry, so no
        // batch boundary leaves a core idle.
        units.into_par_iter().try_for_each(|(b, unit)| {
            self.traverse_unit(&walker, external, unit)?;
            if pending[b].fetch_sub(1, Ordering::AcqRel) == 1 {
                batch_done(b)?;
            }
            Ok(())
        })
    }

    /// Decodes one unit (delta tree) of a plan.
    fn traverse_unit<E: From<PackError> + Send>(
        &self,
        walker: &Walker<'_, E>,
        external: &SharedExternalBase<'_>,
        unit: usize,
    ) -> Result<(), E> {
        let forest = walker.forest;
        if let Some(&pos) = forest.roots.get(unit) {
            let (offset, _) = forest.nodes[pos as usize];
            let entry = self.data.entry_at(offset)?;
            let EntryKind::Base(kind) = entry.kind else {
                unreachable!("roots are base entries");
            };
            let mut body = Vec::new();
            self.data.inflate(&entry, &mut body)?;
            walker.emit(pos, kind, &body, None)?;
            return walker.descend(kind, &body, Some(pos), forest.children_of(pos), 0);
        }
        let (base_id, kids) = &forest.external[unit - forest.roots.len()];
        let Some((kind, body)) = external(base_id) else {
            let (offset, _) = forest.nodes[kids[0] as usize];
            return Err(E::from(PackError::MissingBase {
                path: self.data.path().to_owned(),
                offset,
                base: *base_id,
            }));
        };
        walker.descend(kind, &body, None, kids, 0)
    }

    /// Links every entry to its base and checks every entry is reachable
    /// from a base entry or an external base (no REF_DELTA cycles).
    fn build_forest(&self) -> Result<Forest<'_>, PackError> {
        let path = || self.data.path().to_owned();
        let nodes = self.entries_by_offset()?;
        let position = |offset: u64| {
            nodes
                .binary_search_by_key(&offset, |&(o, _)| o)
                .ok()
                .map(|p| p as u32)
        };
        let parents: Vec<u32> = nodes
            .par_iter()
            .map(|&(offset, _)| {
                let entry = self.data.entry_at(offset)?;
                Ok(match entry.kind {
                    EntryKind::Base(_) => ROOT,
                    EntryKind::OfsDelta { base_offset } => {
                        position(base_offset).ok_or_else(|| PackError::BaseOutOfRange {
                            path: path(),
                            offset,
                            base_offset,
                        })?
                    }
                    EntryKind::RefDelta { base_id } => self
                        .find(&base_id)
                        .map_or(Some(EXTERNAL), position)
                        .expect("every index offset is a node"),
                })
            })
            .collect::<Result<_, PackError>>()?;

        let n = nodes.len();
        let mut child_start = vec![0u32; n + 1];
        let mut roots = Vec::new();
        let mut external: HashMap<ObjectId, Vec<u32>> = HashMap::new();
        for (pos, &parent) in parents.iter().enumerate() {
            match parent {
                ROOT => roots.push(pos as u32),
                EXTERNAL => {
                    let entry = self.data.entry_at(nodes[pos].0)?;
                    let EntryKind::RefDelta { base_id } = entry.kind else {
                        unreachable!("only REF_DELTAs have external bases");
                    };
                    external.entry(base_id).or_default().push(pos as u32);
                }
                p => child_start[p as usize + 1] += 1,
            }
        }
        for p in 0..n {
            child_start[p + 1] += child_start[p];
        }
        let mut fill = child_start.clone();
        let mut children = vec![0u32; child_start[n] as usize];
        for (pos, &parent) in parents.iter().enumerate() {
            if parent != ROOT && parent != EXTERNAL {
                let slot = &mut fill[parent as usize];
                children[*slot as usize] = pos as u32;
                *slot += 1;
            }
        }
        let mut external: Vec<(ObjectId, Vec<u32>)> = external.into_iter().collect();
        external.sort_unstable();
        let forest = Forest {
            nodes,
            child_start,
            children,
            roots,
            external,
        };

        // Reachability: whatever no base leads to sits on a REF_DELTA cycle.
        // Chain depth is bounded as in `read_at`, so a pack the traversal
        // accepts is one random access can read back.
        let mut reached = vec![false; n];
        let mut stack: Vec<(u32, usize)> = forest.roots.iter().map(|&p| (p, 0)).collect();
        stack.extend(
            forest
                .external
                .iter()
                .flat_map(|(_, kids)| kids.iter().map(|&p| (p, 1))),
        );
        while let Some((pos, depth)) = stack.pop() {
            if depth > MAX_CHAIN_DEPTH {
                return Err(PackError::ChainTooDeep {
                    path: path(),
                    offset: forest.nodes[pos as usize].0,
                    max_depth: MAX_CHAIN_DEPTH,
                });
            }
            reached[pos as usize] = true;
            stack.extend(forest.children_of(pos).iter().map(|&c| (c, depth + 1)));
        }
        if let Some(pos) = reached.iter().position(|r| !r) {
            return Err(PackError::DeltaCycle {
                path: path(),
                offset: forest.nodes[pos].0,
            });
        }
        Ok(forest)
    }
}

impl<E: From<PackError> + Send> Walker<'_, E> {
    /// Visits `pos`, rebuilt on `base` (position and body) if a delta.
    fn emit(
        &self,
        pos: u32,
        kind: ObjectKind,
        body: &[u8],
        base: Option<(u32, &[u8])>,
    ) -> Result<(), E> {
        let (offset, index) = self.forest.nodes[pos as usize];
        let base = base.map(|(at, body)| {
            let (offset, index) = self.forest.nodes[at as usize];
            (index, offset, body)
        });
        (self.visit)(index, offset, kind, body, base)
    }

    /// Resolves the delta at `pos` against `base`.
    fn resolve(&self, base: &[u8], pos: u32, delta: &mut Vec<u8>) -> Result<Vec<u8>, PackError> {
        let (offset, _) = self.forest.nodes[pos as usize];
        let entry = self.pack.data.entry_at(offset)?;
        self.pack.data.inflate(&entry, delta)?;
        let mut body = Vec::new();
        apply_delta(base, delta, &mut body).map_err(|source| PackError::Delta {
            path: self.pack.data.path().to_owned(),
            offset,
            source,
        })?;
        Ok(body)
    }

    /// Resolves the subtrees under `kids`, whose base is `base` (at
    /// position `base_at`, `None` outside the pack).
    fn descend(
        &self,
        kind: ObjectKind,
        base: &[u8],
        base_at: Option<u32>,
        kids: &[u32],
        fan_depth: u32,
    ) -> Result<(), E> {
        match kids {
            [] => Ok(()),
            _ if fan_depth >= self.max_fan_depth => self.walk(kind, base, base_at, kids),
            [only] => self.follow(kind, base, base_at, *only, fan_depth),
            _ => kids
                .par_iter()
                .try_for_each(|&pos| self.follow(kind, base, base_at, pos, fan_depth + 1)),
        }
    }

    /// Resolves `pos` and follows single-child links in a loop, handing
    /// over to `descend` at the first fork.
    fn follow(
        &self,
        kind: ObjectKind,
        base: &[u8],
        base_at: Option<u32>,
        pos: u32,
        fan_depth: u32,
    ) -> Result<(), E> {
        let mut delta = Vec::new();
        let mut body = self.resolve(base, pos, &mut delta)?;
        self.emit(pos, kind, &body, base_at.map(|at| (at, base)))?;
        let mut pos = pos;
        loop {
            match self.forest.children_of(pos) {
                [] => return Ok(()),
                [only] => {
                    let next = self.resolve(&body, *only, &mut delta)?;
                    self.emit(*only, kind, &next, Some((pos, &body)))?;
                    body = next;
                    pos = *only;
                }
                kids => return self.descend(kind, &body, Some(pos), kids, fan_depth),
            }
        }
    }

    /// Sequential depth-first walk with an explicit stack of bodies.
    fn walk(
        &self,
        kind: ObjectKind,
        base: &[u8],
        base_at: Option<u32>,
        kids: &[u32],
    ) -> Result<(), E> {
        struct Frame<'f> {
            pos: u32,
            body: Vec<u8>,
            kids: &'f [u32],
            next: usize,
        }
        let mut delta = Vec::new();
        let mut stack: Vec<Frame<'_>> = Vec::new();
        for &pos in kids {
            let body = self.resolve(base, pos, &mut delta)?;
            self.emit(pos, kind, &body, base_at.map(|at| (at, base)))?;
            stack.push(Frame {
                pos,
                body,
                kids: self.forest.children_of(pos),
                next: 0,
            });
            while let Some(top) = stack.last_mut() {
                let Some(&child) = top.kids.get(top.next) else {
                    stack.pop();
                    continue;
                };
                top.next += 1;
                let parent = stack.last().expect("just looked at it");
                let body = self.resolve(&parent.body, child, &mut delta)?;
                self.emit(child, kind, &body, Some((parent.pos, &parent.body)))?;
                if parent.next == parent.kids.len() {
                    stack.pop(); // last child: the parent body is no longer needed
                }
                stack.push(Frame {
                    pos: child,
                    body,
                    kids: self.forest.children_of(child),
                    next: 0,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::HashKind;
    use crate::object::sha1_object_id;
    use crate::testing::git::git;
    use std::sync::Mutex;

    /// The base a visit names is the entry's own delta base, with its
    /// body (of the same kind); a base entry names none.
    fn assert_rebuilt_on(
        pack: &Pack,
        offset: u64,
        kind: ObjectKind,
        base: Option<(u32, u64, &[u8])>,
    ) {
        let entry = pack.data.entry_at(offset).unwrap();
        if let Some((index, _, body)) = base {
            assert_eq!(sha1_object_id(kind, body).unwrap(), pack.idx.oid_at(index));
        }
        match (entry.kind, base) {
            (EntryKind::Base(_), None) => {}
            (EntryKind::OfsDelta { base_offset }, Some((_, at, _))) => assert_eq!(base_offset, at),
            (EntryKind::RefDelta { base_id }, Some((index, _, _))) => {
                assert_eq!(base_id, pack.idx.oid_at(index))
            }
            (kind, base) => panic!(
                "{kind:?} at {offset} visited with base {:?}",
                base.map(|b| b.0)
            ),
        }
    }

    #[test]
    fn every_fan_out_limit_visits_each_object_once() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        let mut text = String::new();
        for i in 0..40 {
            text.push_str(&format!("line {i} of a file that keeps growing\n"));
            std::fs::write(dir.join("f.txt"), &text).unwrap();
            std::fs::write(dir.join(format!("g{}.txt", i % 3)), text.repeat(i % 4 + 1)).unwrap();
            git(dir, &["add", "-A"]);
            git(dir, &["commit", "-q", "-m", &format!("c{i}")]);
        }
        git(dir, &["repack", "-adfq", "--window=50", "--depth=100"]);
        let idx = std::fs::read_dir(dir.join(".git/objects/pack"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "idx"))
            .unwrap();
        let pack = Pack::open(&idx, HashKind::Sha1).unwrap();
        let batchings = [
            BatchLimits::WHOLE_PACK,
            BatchLimits {
                objects: 1,
                compressed_bytes: u64::MAX,
            },
            BatchLimits {
                objects: 7,
                compressed_bytes: 2000,
            },
        ];
        for limits in batchings {
            let plan = pack.plan_traversal(limits).unwrap();
            for limit in [0, 1, 2, MAX_FAN_DEPTH] {
                let seen = Mutex::new(vec![0u32; pack.idx.num_objects() as usize]);
                for b in 0..plan.batch_count() {
                    let in_batch = Mutex::new(Vec::new());
                    pack.traverse_batch_limited::<PackError>(
                        &plan,
                        b,
                        &|_| None,
                        &|i, offset, kind, body, base| {
                            assert_eq!(sha1_object_id(kind, body).unwrap(), pack.idx.oid_at(i));
                            assert_rebuilt_on(&pack, offset, kind, base);
                            seen.lock().unwrap()[i as usize] += 1;
                            in_batch.lock().unwrap().push((i, offset));
                            Ok(())
                        },
                        limit,
                    )
                    .unwrap();
                    // The plan names exactly what the batch decodes.
                    let mut got = in_batch.into_inner().unwrap();
                    let mut listed: Vec<_> = plan.batch_objects(b).collect();
                    got.sort_unstable();
                    listed.sort_unstable();
                    assert_eq!(got, listed, "{limits:?} batch {b}");
                }
                assert!(
                    seen.into_inner().unwrap().iter().all(|&c| c == 1),
                    "{limits:?} fan-out limit {limit}"
                );
            }
            // All batches as one traversal (and a subset): each object once,
            // each batch reported done once, after its last object.
            let all: Vec<usize> = (0..plan.batch_count()).collect();
            let odd: Vec<usize> = all.iter().copied().filter(|b| b % 2 == 1).collect();
            for chosen in [all, odd] {
                let seen = Mutex::new(vec![0u32; pack.idx.num_objects() as usize]);
                let done = Mutex::new(Vec::new());
                pack.traverse_batches::<PackError>(
                    &plan,
                    &chosen,
                    &|_| None,
                    &|i, offset, kind, body, base| {
                        assert_eq!(sha1_object_id(kind, body).unwrap(), pack.idx.oid_at(i));
                        assert_rebuilt_on(&pack, offset, kind, base);
                        assert!(!done.lock().unwrap().contains(&plan.batch_of(i)));
                        seen.lock().unwrap()[i as usize] += 1;
                        Ok(())
                    },
                    &|b| {
                        let seen = seen.lock().unwrap();
                        assert!(plan.batch_objects(b).all(|(i, _)| seen[i as usize] == 1));
                        done.lock().unwrap().push(b);
                        Ok(())
                    },
                )
                .unwrap();
                let mut done = done.into_inner().unwrap();
                done.sort_unstable();
                assert_eq!(done, chosen, "{limits:?}");
                let seen = seen.into_inner().unwrap();
                for i in 0..pack.idx.num_objects() {
                    let want = u32::from(chosen.contains(&plan.batch_of(i)));
                    assert_eq!(seen[i as usize], want, "{limits:?} entry {i}");
                }
            }
            if limits.objects == 1 {
                assert!(plan.batch_count() > 1, "one delta tree per batch");
            }
        }
    }
}
