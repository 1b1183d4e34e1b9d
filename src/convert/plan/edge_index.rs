//! What each object references, from the scan's edges: the (dependent,
//! dependency) pairs sorted, and where each object's run of them starts
//! (a compressed sparse row index: 8 bytes an object beside the edges).
//! Objects the scan did not decode (an earlier run converted them) have
//! no edges: a walk stops at them.

use rayon::prelude::*;

/// The scan's edges, indexed by dependent.
pub struct EdgeIndex<'a> {
    edges: &'a [(u32, u32)],
    /// `start[i]..start[i + 1]`: the edges of object `i`.
    start: Vec<usize>,
}

impl<'a> EdgeIndex<'a> {
    /// Sorts `edges` (on every core) and indexes them for a table of
    /// `objects` entries.
    pub fn sort(edges: &'a mut [(u32, u32)], objects: usize) -> Self {
        edges.par_sort_unstable();
        Self::sorted(edges, objects)
    }

    /// Indexes `edges`, sorted already.
    pub fn sorted(edges: &'a [(u32, u32)], objects: usize) -> Self {
        debug_assert!(edges.is_sorted());
        let mut start = vec![0usize; objects + 1];
        for &(dependent, _) in edges {
            start[dependent as usize + 1] += 1;
        }
        for i in 0..objects {
            start[i + 1] += start[i];
        }
        EdgeIndex { edges, start }
    }

    /// What object `at` references (repeats possible).
    pub fn references(&self, at: u32) -> impl ExactSizeIterator<Item = u32> + 'a {
        self.edges_of(at).iter().map(|&(_, dep)| dep)
    }

    /// The edges of object `at`, (at, dependency) each.
    pub fn edges_of(&self, at: u32) -> &'a [(u32, u32)] {
        let at = at as usize;
        &self.edges[self.start[at]..self.start[at + 1]]
    }

    /// How many objects the index covers.
    pub fn objects(&self) -> usize {
        self.start.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_object_gets_its_run_of_edges() {
        let mut edges = vec![(2, 0), (0, 1), (2, 1), (3, 2)];
        let index = EdgeIndex::sort(&mut edges, 5);
        let of = |at| index.references(at).collect::<Vec<_>>();
        assert_eq!(of(0), [1]);
        assert!(of(1).is_empty());
        assert_eq!(of(2), [0, 1]);
        assert_eq!(of(3), [2]);
        assert!(of(4).is_empty());
        assert_eq!(index.objects(), 5);
    }
}
