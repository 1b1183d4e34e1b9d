//! Which refs reach the objects a refusal names (missing objects'
//! holders, trees with unmapped gitlinks, commits with lost mergetags),
//! so that the refusal can name them and the selection that converts
//! without them (`--exclude-refs 'refs/pull/*'`, `--reachable-only`).
//!
//! Answered from the scan's edges in one depth-first walk from the refs
//! per 63 objects asked about: each object gets a 64-bit set of those it
//! reaches (its own, OR-ed with its references'), so a ref's set says
//! which of them it reaches; the 64th bit, for "any of them", gives the
//! refs that reach something the refusal names. Objects an earlier run
//! converted have no edges (the map is closed under references: nothing
//! they reach is refused). Only refusals walk: 9 bytes an object.

use std::collections::BTreeMap;

use super::edge_index::EdgeIndex;
use crate::convert::error::findings::{ReachingRefs, RefusalReach};
use crate::convert::source_objects::table::ObjectTable;
use crate::refs::{RefSelection, SourceRefs};

/// The refs a walk starts from: every ref naming an object SOURCE has,
/// and a detached `HEAD`, sorted by name.
pub struct RefRoots {
    refs: Vec<(String, u32)>,
}

impl RefRoots {
    /// The roots of `refs` (the snapshot the run converts).
    pub fn new(refs: &SourceRefs, table: &ObjectTable) -> Self {
        let mut roots: Vec<(String, u32)> = refs
            .effective_refs()
            .into_iter()
            .filter_map(|(name, target)| Some((name, table.find(&target.id()?)?)))
            .collect();
        if let Some(at) = refs.head.id().and_then(|id| table.find(&id)) {
            roots.push(("HEAD".to_string(), at));
        }
        roots.sort();
        RefRoots { refs: roots }
    }

    /// The table indices the refs name.
    pub fn indices(&self) -> impl Iterator<Item = u32> + '_ {
        self.refs.iter().map(|&(_, at)| at)
    }
}

/// What a refusal's refs are worked out from.
pub struct RefReach<'a> {
    pub edges: EdgeIndex<'a>,
    pub roots: &'a RefRoots,
    /// The run's ref selection, which the suggested options extend.
    pub selection: Option<&'a RefSelection>,
}

/// Objects of one walk: 63 asked about, and the bit for "any".
const PER_WALK: usize = 63;
const ANY: u64 = 1 << 63;

impl RefReach<'_> {
    /// For each item (the table indices of the objects it stands for: a
    /// missing object's holders, the trees of one gitlink path, ...), the
    /// refs that reach one of its objects; and those that reach any item,
    /// with the options that convert without them.
    pub fn trace(&self, items: &[Vec<u32>]) -> (Vec<ReachingRefs>, RefusalReach) {
        let mut reaching: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
        let mut any = Vec::new();
        for (walk, chunk) in items.chunks(PER_WALK).enumerate() {
            let mut bits = vec![0u64; self.edges.objects()];
            for (k, holders) in chunk.iter().enumerate() {
                for &at in holders {
                    bits[at as usize] |= (1 << k) | if walk == 0 { ANY } else { 0 };
                }
            }
            self.propagate(&mut bits);
            for (r, at) in self.roots.indices().enumerate() {
                let set = bits[at as usize];
                for (k, refs) in reaching[walk * PER_WALK..]
                    .iter_mut()
                    .take(chunk.len())
                    .enumerate()
                {
                    if set & (1 << k) != 0 {
                        refs.push(r);
                    }
                }
                if walk == 0 && set & ANY != 0 {
                    any.push(r);
                }
            }
        }
        let names = |refs: &[usize]| -> Vec<&str> {
            refs.iter()
                .map(|&r| self.roots.refs[r].0.as_str())
                .collect()
        };
        let summary = |refs: &[usize]| ReachingRefs {
            first: names(refs)
                .into_iter()
                .take(ReachingRefs::SHOWN)
                .map(str::to_string)
                .collect(),
            count: refs.len(),
        };
        let per_item = reaching.iter().map(|refs| summary(refs)).collect();
        let reach = RefusalReach {
            refs: summary(&any),
            options_past: options_past(&names(&any), self.selection),
        };
        (per_item, reach)
    }

    /// ORs into each object reached from the refs the sets of what it
    /// references, depth first (children before parents, one visit each).
    fn propagate(&self, bits: &mut [u64]) {
        const NEW: u8 = 0;
        const OPEN: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![NEW; bits.len()];
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for root in self.roots.indices() {
            if state[root as usize] != NEW {
                continue;
            }
            state[root as usize] = OPEN;
            stack.push((root, 0));
            while let Some((at, next)) = stack.last_mut() {
                let (at, edges) = (*at, self.edges.edges_of(*at));
                if let Some(&(_, child)) = edges.get(*next) {
                    *next += 1;
                    match state[child as usize] {
                        NEW => {
                            state[child as usize] = OPEN;
                            stack.push((child, 0));
                        }
                        DONE => bits[at as usize] |= bits[child as usize],
                        // A ring, which content addressing rules out for
                        // honest data (the schedule refuses it).
                        _ => {}
                    }
                } else {
                    stack.pop();
                    state[at as usize] = DONE;
                    if let Some(&(parent, _)) = stack.last() {
                        bits[parent as usize] |= bits[at as usize];
                    }
                }
            }
        }
    }
}

/// The selection that leaves out what `refs` reach: the run's own, with
/// these refs excluded too. Branches and tags are named one by one when
/// few; other namespaces (`refs/pull/`, `refs/merge-requests/`, ...),
/// which hosts fill, are excluded whole. No ref at all: `--reachable-only`.
fn options_past(refs: &[&str], selection: Option<&RefSelection>) -> String {
    let mut options: Vec<String> = selection
        .filter(|s| !s.is_every_ref())
        .map(|s| s.command_line())
        .into_iter()
        .collect();
    let mut by_namespace: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for &name in refs.iter().filter(|&&name| name != "HEAD") {
        let namespace = name
            .match_indices('/')
            .nth(1)
            .map_or(name, |(end, _)| &name[..end]);
        by_namespace.entry(namespace).or_default().push(name);
    }
    for (namespace, names) in by_namespace {
        let one_by_one = matches!(namespace, "refs/heads" | "refs/tags") && names.len() <= 3;
        if one_by_one || names.len() == 1 && names[0] == namespace {
            options.extend(names.iter().map(|name| format!("--exclude-refs '{name}'")));
        } else {
            options.push(format!("--exclude-refs '{namespace}/*'"));
        }
    }
    if refs.is_empty() && options.is_empty() {
        options.push("--reachable-only".to_string());
    }
    if refs.contains(&"HEAD") {
        options.push("(and a HEAD detached elsewhere: HEAD is always converted)".to_string());
    }
    options.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosted_namespaces_are_left_out_whole_and_branches_by_name() {
        assert_eq!(
            options_past(&["refs/pull/1/head", "refs/pull/2/merge"], None),
            "--exclude-refs 'refs/pull/*'"
        );
        assert_eq!(
            options_past(&["refs/heads/topic", "refs/pull/1/head"], None),
            "--exclude-refs 'refs/heads/topic' --exclude-refs 'refs/pull/*'"
        );
        assert_eq!(options_past(&[], None), "--reachable-only");
        let kept = RefSelection {
            refs: vec!["refs/heads".parse().unwrap()],
            exclude: Vec::new(),
        };
        assert_eq!(
            options_past(&["refs/heads/wip"], Some(&kept)),
            "--refs 'refs/heads' --exclude-refs 'refs/heads/wip'"
        );
    }

    #[test]
    fn each_item_gets_the_refs_that_reach_it() {
        // 0 <- 1 <- 2 (ref a), 3 (ref b) -> 1, 4 unreachable -> 0
        let mut edges = vec![(1, 0), (2, 1), (3, 1), (4, 0)];
        let roots = RefRoots {
            refs: vec![("refs/heads/a".into(), 2), ("refs/pull/1/head".into(), 3)],
        };
        let reach = RefReach {
            edges: EdgeIndex::sort(&mut edges, 5),
            roots: &roots,
            selection: None,
        };
        let (items, all) = reach.trace(&[vec![0], vec![3], vec![4]]);
        assert_eq!(items[0].count, 2);
        assert_eq!(items[1].first, ["refs/pull/1/head"]);
        assert_eq!(items[2].count, 0);
        assert_eq!(all.refs.count, 2);
        assert_eq!(
            all.options_past,
            "--exclude-refs 'refs/heads/a' --exclude-refs 'refs/pull/*'"
        );
        // More items than one walk holds.
        let many: Vec<Vec<u32>> = (0..130).map(|k| vec![[0, 3, 4][k % 3]]).collect();
        let (items, _) = reach.trace(&many);
        assert_eq!(items[129].count, 2);
        assert_eq!(items[128].count, 0);
        assert_eq!(items[127].count, 1);
    }
}
