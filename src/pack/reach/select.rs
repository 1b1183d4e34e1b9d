//! Which commits get a bitmap. A reader finds the bitmap of a wanted
//! commit, or walks back from it to the nearest commits that have one, so
//! recent history is covered densely and old history sparsely: the 100
//! newest commits all get one, then one in every 100 commits up to the
//! 20,000th, then gaps growing to one in 5,000. Within a gap the choice
//! falls on a ref tip if there is one (what clients ask for), else on a
//! merge (whose walk would fork), else on the gap's oldest commit. This is
//! the spacing git's own writer uses, so a converted repository serves
//! like one git repacked.

use super::graph::Graph;
use crate::object::ObjectKind;

const DENSE: usize = 100;
const NEAR: usize = 20_000;
const MIN_GAP: usize = 100;
const MAX_GAP: usize = 5_000;

/// The gap after the `i`-th newest commit.
fn gap_after(i: usize) -> usize {
    if i <= DENSE {
        0
    } else if i <= NEAR {
        (i - DENSE).min(MIN_GAP)
    } else {
        (i - NEAR).clamp(MIN_GAP, MAX_GAP)
    }
}

/// The positions of the commits to give bitmaps, given whether each
/// position is a ref tip. Deterministic: ties in time are broken by
/// position.
pub fn select(graph: &Graph, is_tip: &[bool]) -> Vec<u32> {
    let mut commits: Vec<u32> = (0..graph.len() as u32)
        .filter(|&p| graph.kinds[p as usize] == ObjectKind::Commit)
        .collect();
    // Newest first.
    commits.sort_by_key(|&p| (std::cmp::Reverse(graph.commit_time[p as usize]), p));
    if commits.len() < DENSE {
        return commits;
    }
    let mut chosen = Vec::new();
    let mut i = 0;
    loop {
        let gap = gap_after(i);
        if i + gap >= commits.len() {
            break;
        }
        let stretch = &commits[i..=i + gap];
        let pick = stretch
            .iter()
            .copied()
            .find(|&p| is_tip[p as usize])
            .or_else(|| {
                stretch
                    .iter()
                    .rev()
                    .copied()
                    .find(|&p| graph.parents(p).nth(1).is_some())
            })
            .unwrap_or(commits[i + gap]);
        chosen.push(pick);
        i += gap + 1;
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::gap_after;

    #[test]
    fn gaps_widen_with_age() {
        assert_eq!(gap_after(0), 0);
        assert_eq!(gap_after(100), 0);
        assert_eq!(gap_after(150), 50);
        assert_eq!(gap_after(5_000), 100);
        assert_eq!(gap_after(20_050), 100);
        assert_eq!(gap_after(23_000), 3_000);
        assert_eq!(gap_after(1_000_000), 5_000);
    }
}
