//! zlib compression of pack entry data.
//!
//! A zlib-rs deflate state is ~270 KiB that `Compress::new` allocates and
//! zeroes; most entries here are small trees and commits, so a fresh state
//! per entry made `memset` and page faults a tenth of the conversion. Each
//! thread keeps one state per level and resets it between entries (zlib's
//! `deflateReset`), which yields the same stream as a fresh state.

use std::cell::RefCell;

use flate2::{Compress, Compression, FlushCompress, Status};

thread_local! {
    /// This thread's deflate state and the level it was made for.
    static DEFLATER: RefCell<Option<(u32, Compress)>> = const { RefCell::new(None) };
}

/// The zlib stream of `data` at `level` (0-9), as a pack entry stores it.
pub fn deflate(data: &[u8], level: u32) -> Vec<u8> {
    let level = level.min(9);
    DEFLATER.with_borrow_mut(|slot| {
        let z = match slot {
            Some((made_for, z)) if *made_for == level => {
                z.reset();
                z
            }
            _ => {
                &mut slot
                    .insert((level, Compress::new(Compression::new(level), true)))
                    .1
            }
        };
        // Counters are not guaranteed to restart at zero on reset.
        let in_start = z.total_in();
        let mut out = Vec::with_capacity(data.len() / 2 + 64);
        loop {
            let consumed =
                usize::try_from(z.total_in() - in_start).expect("input is an in-memory slice");
            if out.len() == out.capacity() {
                out.reserve(out.capacity().max(64));
            }
            let status = z
                .compress_vec(&data[consumed..], &mut out, FlushCompress::Finish)
                .expect("deflate of an in-memory buffer cannot fail");
            if status == Status::StreamEnd {
                return out;
            }
        }
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
        for (z, d) in reused.iter().zip(inputs.iter().cycle()) {
            assert_eq!(&inflate(z), d);
        }
    }
}
