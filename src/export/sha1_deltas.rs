//! Deltas between the SHA-1 forms of one chunk's trees, commits and tags,
//! which DEST's deltas (between their SHA-256 forms) cannot serve: the
//! sliding-window search of `git pack-objects` (`pack/delta_search/window.rs`),
//! each type on its own, over fixed pieces of the chunk searched in
//! parallel, so the result does not depend on the thread count. A delta
//! names a base of the same chunk; the fold writes every base before its
//! deltas.

use rayon::prelude::*;

use crate::object::ObjectKind;
use crate::pack::{Tries, WindowObject, WindowOptions, window_search};
use crate::zlib::deflate;

/// Objects a piece searches with one window.
const PIECE: usize = 256;

/// The window of the search: git's `pack.window` and `pack.depth` defaults.
const OPTIONS: WindowOptions = WindowOptions {
    window: 10,
    depth: 50,
    memory: 32 << 20,
    id_len: 20,
    tries: Tries::Every,
};

/// How one object goes into the pack, compressed at the run's level.
pub enum Compressed {
    Whole(Vec<u8>),
    /// A delta of `size` bytes against object number `base` of the input.
    Delta {
        base: usize,
        size: u64,
        zlib: Vec<u8>,
    },
}

/// Each of `bodies` (their type and SHA-1 body) whole or as a delta of
/// another of the same type, compressed at `level`; in input order.
pub fn deltify(bodies: &[(ObjectKind, &[u8])], level: u32) -> Vec<Compressed> {
    let mut pieces: Vec<Vec<usize>> = Vec::new();
    for kind in [ObjectKind::Tree, ObjectKind::Commit, ObjectKind::Tag] {
        let of_kind: Vec<usize> = (0..bodies.len()).filter(|&i| bodies[i].0 == kind).collect();
        pieces.extend(of_kind.chunks(PIECE).map(<[usize]>::to_vec));
    }
    let found: Vec<Vec<(usize, usize, Vec<u8>)>> = pieces
        .par_iter()
        .map(|piece| {
            let objects: Vec<WindowObject> = piece
                .iter()
                .map(|&i| WindowObject {
                    name_hash: 0,
                    size: bodies[i].1.len() as u64,
                })
                .collect();
            let mut deltas = Vec::new();
            let searched = window_search(
                &objects,
                OPTIONS,
                |at| Ok::<_, std::convert::Infallible>(bodies[piece[at as usize]].1.to_vec()),
                |at, base, delta| {
                    deltas.push((piece[at as usize], piece[base as usize], delta));
                    Ok(())
                },
            );
            match searched {
                Ok(_) => deltas,
                Err(never) => match never {},
            }
        })
        .collect();
    let mut out: Vec<Option<Compressed>> = bodies.iter().map(|_| None).collect();
    for (at, base, delta) in found.into_iter().flatten() {
        out[at] = Some(Compressed::Delta {
            base,
            size: delta.len() as u64,
            zlib: deflate(&delta, level),
        });
    }
    out.into_par_iter()
        .zip(bodies)
        .map(|(chosen, (_, body))| {
            chosen.unwrap_or_else(|| Compressed::Whole(deflate(body, level)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::apply_delta;

    fn inflate_all(zlib: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(zlib), &mut out).unwrap();
        out
    }

    #[test]
    fn versions_of_a_tree_become_deltas_of_each_other_and_apply() {
        let versions: Vec<Vec<u8>> = (0..6)
            .map(|v| {
                let mut body = Vec::new();
                for entry in 0..40 {
                    body.extend_from_slice(format!("100644 file{entry}.txt\0").as_bytes());
                    body.extend_from_slice(
                        &[(entry * 7 + usize::from(entry == v) * 100) as u8; 20],
                    );
                }
                body
            })
            .collect();
        let commit = b"tree 1\n\nnot like a tree at all, but long enough to be searched".to_vec();
        let mut bodies: Vec<(ObjectKind, &[u8])> = versions
            .iter()
            .map(|b| (ObjectKind::Tree, b.as_slice()))
            .collect();
        bodies.push((ObjectKind::Commit, &commit));
        let stored = deltify(&bodies, 6);
        let mut deltas = 0;
        for (i, s) in stored.iter().enumerate() {
            let whole = match s {
                Compressed::Whole(zlib) => inflate_all(zlib),
                Compressed::Delta { base, size, zlib } => {
                    deltas += 1;
                    assert_eq!(bodies[*base].0, bodies[i].0, "a delta of its own type");
                    let delta = inflate_all(zlib);
                    assert_eq!(delta.len() as u64, *size);
                    let mut out = Vec::new();
                    apply_delta(bodies[*base].1, &delta, &mut out).unwrap();
                    out
                }
            };
            assert_eq!(whole, bodies[i].1);
        }
        assert!(deltas >= 4, "only {deltas} deltas");
    }
}
