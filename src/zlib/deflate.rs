//! zlib compression of pack entry data.
//!
//! Every stream here compresses one whole in-memory object or delta, so a
//! one-shot compressor fits better than a streaming one: libdeflate
//! (`libdeflater`) at the same level was measured 1.45x faster than zlib-rs
//! on git.git's commits, 1.7x on its trees and 2x on delta-sized inputs
//! (60-400 bytes, where zlib's per-stream reset and Huffman set-up
//! dominate), with output as small or smaller. Each thread keeps one
//! compressor per level it uses (allocating one per entry would cost more
//! than compressing a small tree).
//!
//! Inputs of at most [`SMALL_INPUT`] bytes (most tree deltas are 40-50
//! bytes, commits a few hundred) go through libdeflate's fastest level
//! instead of the requested one. libdeflate clears its match-finder tables
//! (192 KiB at levels 2-9) for every stream, which is most of the cost of
//! a small one: on the 340k streams of the 500k-object corpus's map pass,
//! those up to 1 KiB took 6.6-11 us each at level 6 and 1.2-7.9 us at
//! level 1, for 0.7% more output on them (0.03% of the pack). Below ~50
//! bytes either level stores the input, which deflate cannot shrink.
//!
//! Inputs of at most [`STORED_INPUT`] bytes are stored (level 0): level 1
//! still clears its 128 KiB hash table for each, ~7 us, to save almost
//! nothing (such inputs are tree deltas, mostly a new entry's random id).
//! git.git's map pass: 22,363 streams of 56-128 bytes, 7.2-7.9 us each at
//! level 1 against 0.1-0.2 us stored, and 5 KB more output in all (of a
//! 90 MB pack); from 129 bytes on, level 1 wins 3% and more.

use std::cell::RefCell;

use libdeflater::{CompressionLvl, Compressor};

/// Largest input compressed at level 1 whatever level was asked for.
const SMALL_INPUT: usize = 1024;

/// Largest input stored rather than compressed.
const STORED_INPUT: usize = 128;

/// Outputs up to this size are compressed into a buffer the thread keeps
/// and copied out at their exact size; larger ones get their own buffer.
const SCRATCH_MAX: usize = 1 << 20;

thread_local! {
    /// This thread's compressors, with the level each was made for.
    static DEFLATERS: RefCell<Vec<(u32, Compressor)>> = const { RefCell::new(Vec::new()) };
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The zlib stream of `data` at `level` (0-9; inputs up to [`STORED_INPUT`]
/// bytes at 0, up to [`SMALL_INPUT`] at most 1), as a pack entry stores
/// it. The result's capacity is its length: prepared chunks wait in memory
/// as these, and the bound a compressor needs is about the input's size.
pub fn deflate(data: &[u8], level: u32) -> Vec<u8> {
    let level = match level.min(9) {
        _ if data.len() <= STORED_INPUT => 0,
        level if data.len() <= SMALL_INPUT => level.min(1),
        level => level,
    };
    DEFLATERS.with_borrow_mut(|made| {
        let at = match made.iter().position(|(made_for, _)| *made_for == level) {
            Some(at) => at,
            None => {
                let lvl = CompressionLvl::new(level as i32).expect("0-9 are libdeflate levels");
                made.push((level, Compressor::new(lvl)));
                made.len() - 1
            }
        };
        let z = &mut made[at].1;
        let bound = z.zlib_compress_bound(data.len());
        let mut compress = |out: &mut [u8]| {
            z.zlib_compress(data, out)
                .expect("the bound leaves room for any input")
        };
        if bound > SCRATCH_MAX {
            let mut out = vec![0u8; bound];
            let n = compress(&mut out);
            out.truncate(n);
            out.shrink_to_fit();
            return out;
        }
        SCRATCH.with_borrow_mut(|scratch| {
            if scratch.len() < bound {
                scratch.resize(bound, 0);
            }
            let n = compress(&mut scratch[..bound]);
            scratch[..n].to_vec()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    fn inflate(z: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::ZlibDecoder::new(z)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    fn text(len: usize) -> Vec<u8> {
        b"100644 Makefile\0"
            .iter()
            .copied()
            .cycle()
            .take(len)
            .collect()
    }

    #[test]
    fn reused_state_round_trips_and_matches_a_fresh_one() {
        let big: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let inputs: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"tree 0\0".to_vec(),
            big,
            b"hello hello hello".to_vec(),
            // Either side of the stored and small-input limits.
            text(STORED_INPUT),
            text(STORED_INPUT + 1),
            text(SMALL_INPUT),
            text(SMALL_INPUT + 1),
            // Past the kept buffer.
            text(SCRATCH_MAX + 1),
        ];
        let levels = [0, 1, 6, 9, 6];
        // A thread of its own: there, every state is used for the first time.
        let fresh: Vec<Vec<u8>> = levels
            .iter()
            .flat_map(|&l| {
                inputs.iter().map(move |d| {
                    let d = d.clone();
                    std::thread::spawn(move || deflate(&d, l)).join().unwrap()
                })
            })
            .collect();
        let reused: Vec<Vec<u8>> = levels
            .iter()
            .flat_map(|&l| inputs.iter().map(move |d| deflate(d, l)))
            .collect();
        assert_eq!(reused, fresh);
        // Stored: the input's bytes follow the 2-byte zlib and 5-byte block
        // headers verbatim, whatever level was asked for.
        let stored = deflate(&text(STORED_INPUT), 9);
        assert_eq!(stored.len(), 2 + 5 + STORED_INPUT + 4);
        assert_eq!(&stored[7..7 + STORED_INPUT], &text(STORED_INPUT)[..]);
        assert!(deflate(&text(STORED_INPUT + 1), 9).len() < STORED_INPUT);
        for (z, d) in reused.iter().zip(inputs.iter().cycle()) {
            assert_eq!(&inflate(z), d);
        }
    }
}
