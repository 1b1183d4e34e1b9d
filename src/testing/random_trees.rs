//! Random tree bodies and edits of them, for the tests of the walks that
//! line up two versions of a tree.

use super::rng::Rng;

#[derive(Clone)]
pub struct E {
    pub mode: &'static str,
    pub name: Vec<u8>,
    pub id: u64,
}

/// A tree body with ids derived from `id` (`width` bytes each): the
/// SHA-1 form with width 20, its "translation" with width 32.
pub fn body(entries: &[E], width: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for e in entries {
        out.extend_from_slice(e.mode.as_bytes());
        out.push(b' ');
        out.extend_from_slice(&e.name);
        out.push(0);
        let mut id = e.id.to_le_bytes().repeat(4);
        id[8] ^= width as u8;
        out.extend_from_slice(&id[..width]);
    }
    out
}

pub fn random_tree(rng: &mut Rng, n: usize) -> Vec<E> {
    let mut names: Vec<Vec<u8>> = (0..n)
        .map(|k| format!("file-{:04}-{}", rng.below(10_000), k % 7).into_bytes())
        .collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|name| E {
            mode: ["100644", "100755", "40000", "120000", "160000"][rng.below(5)],
            name,
            id: rng.next(),
        })
        .collect()
}

pub fn edit(rng: &mut Rng, base: &[E], edits: usize) -> Vec<E> {
    let mut t = base.to_vec();
    for _ in 0..edits {
        let at = rng.below(t.len() + 1);
        match rng.below(4) {
            0 if at < t.len() => t[at].id = rng.next(),
            1 if at < t.len() => {
                t.remove(at);
            }
            2 if at < t.len() && t[at].mode != "40000" => t[at].mode = "100755",
            _ => {
                // Right after an existing name, so the tree stays sorted.
                let at = at.min(t.len().saturating_sub(1));
                let mut name = t.get(at).map_or(b"zz".to_vec(), |e| e.name.clone());
                name.push(b'a' + rng.below(26) as u8);
                t.insert(
                    (at + 1).min(t.len()),
                    E {
                        mode: "100644",
                        name,
                        id: rng.next(),
                    },
                );
            }
        }
    }
    t
}
