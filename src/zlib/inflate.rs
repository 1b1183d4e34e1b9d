//! Bounded zlib inflation shared by pack entries and loose objects.
//!
//! git stores both as zlib streams whose inflated size is declared up front
//! (pack entry header, loose object header). The declared size can be a lie,
//! so output buffers grow with what the stream really produces and never past
//! the declared size: a zlib bomb or a forged header cannot make us reserve
//! more memory than the data yields.

use flate2::{Decompress, FlushDecompress, Status};

/// Why a zlib stream could not be inflated to its declared size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ZlibError {
    /// The stream is not valid zlib data.
    Corrupt(String),
    /// The input ended before the stream did.
    Truncated,
    /// The stream yields more than the declared size; `at_least` bytes.
    TooLong { at_least: u64 },
}

thread_local! {
    static INFLATER: std::cell::RefCell<Decompress> = std::cell::RefCell::new(Decompress::new(true));
}

/// Runs `f` with this thread's inflate state, reset for a new zlib stream.
/// A fresh `Decompress` per entry costs an allocation and zeroing of its
/// state for every object read, which for small trees and commits is a
/// noticeable share of inflating them.
pub(crate) fn with_inflater<R>(f: impl FnOnce(&mut Decompress) -> R) -> R {
    INFLATER.with_borrow_mut(|z| {
        z.reset(true);
        f(z)
    })
}

thread_local! {
    static WHOLE_INFLATER: std::cell::RefCell<libdeflater::Decompressor> =
        std::cell::RefCell::new(libdeflater::Decompressor::new());
}

/// Largest declared size [`inflate_whole`] takes on: it sizes its output
/// up front, so a forged size costs at most this much memory per thread
/// before the data disproves it. Larger objects stream through zlib.
const WHOLE_INFLATE_LIMIT: usize = 64 << 20;

/// Inflates the zlib stream at the start of `input` (which may run on past
/// it) into `out`, when it yields exactly `size` bytes and checks out
/// (Adler-32 included). One libdeflate call, measured about twice as fast
/// as streaming through zlib-rs, which matters because every object of a
/// pack is inflated at least once. On any failure `out` is left empty and
/// the caller inflates again through zlib, whose streaming state tells
/// exactly what is wrong (truncated, corrupt, too long, too short); so
/// does a `size` above [`WHOLE_INFLATE_LIMIT`].
pub(crate) fn inflate_whole(input: &[u8], size: usize, out: &mut Vec<u8>) -> bool {
    out.clear();
    if size > WHOLE_INFLATE_LIMIT {
        return false;
    }
    out.resize(size, 0);
    let produced = WHOLE_INFLATER.with_borrow_mut(|d| d.zlib_decompress(input, out));
    if produced == Ok(size) {
        return true;
    }
    out.clear();
    false
}

/// First reservation for an output buffer; later growth doubles.
const FIRST_RESERVATION: usize = 8 << 20;

/// Makes room for `additional` more bytes in `out`, growing geometrically
/// but never to a capacity beyond `limit` (unless `len + additional` is).
pub(crate) fn grow_within(out: &mut Vec<u8>, additional: usize, limit: usize) {
    let spare = out.capacity() - out.len();
    if spare >= additional {
        return;
    }
    let headroom = limit.saturating_sub(out.len());
    let step = out
        .len()
        .max(FIRST_RESERVATION)
        .min(headroom)
        .max(additional);
    out.reserve_exact(step);
}

/// Position in `input` where the stream continues.
fn position(z: &Decompress, input: &[u8]) -> usize {
    usize::try_from(z.total_in()).map_or(input.len(), |p| p.min(input.len()))
}

/// Inflates from `input` (the whole remaining stream, `z` tracks how much it
/// consumed) appending to `out`, until `out.len() >= limit` or the stream
/// ends. Returns whether the stream ended. Inflation may fill capacity the
/// caller reserved beyond `limit`; going past `limit` is `TooLong`.
pub(crate) fn inflate_until(
    z: &mut Decompress,
    input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
) -> Result<bool, ZlibError> {
    loop {
        if out.len() > limit {
            return Err(ZlibError::TooLong {
                at_least: out.len() as u64,
            });
        }
        if out.len() == limit {
            return Ok(false);
        }
        grow_within(out, 1, limit);
        let pos = position(z, input);
        let (in_before, out_before) = (z.total_in(), out.len());
        let status = z
            .decompress_vec(&input[pos..], out, FlushDecompress::None)
            .map_err(|e| ZlibError::Corrupt(e.to_string()))?;
        if status == Status::StreamEnd {
            return if out.len() > limit {
                Err(ZlibError::TooLong {
                    at_least: out.len() as u64,
                })
            } else {
                Ok(true)
            };
        }
        if z.total_in() == in_before && out.len() == out_before {
            return Err(stalled(pos, input));
        }
    }
}

/// After the declared output was produced: checks that the stream ends
/// there, consuming its end-of-block code and Adler-32 trailer.
pub(crate) fn expect_end(z: &mut Decompress, input: &[u8], produced: u64) -> Result<(), ZlibError> {
    let mut scratch = [0u8; 64];
    loop {
        let pos = position(z, input);
        let (in_before, out_before) = (z.total_in(), z.total_out());
        let status = z
            .decompress(&input[pos..], &mut scratch, FlushDecompress::None)
            .map_err(|e| ZlibError::Corrupt(e.to_string()))?;
        let extra = z.total_out() - out_before;
        if extra > 0 {
            return Err(ZlibError::TooLong {
                at_least: produced + extra,
            });
        }
        if status == Status::StreamEnd {
            return Ok(());
        }
        if z.total_in() == in_before {
            return Err(stalled(pos, input));
        }
    }
}

/// Inflates the whole stream into a scratch buffer, returning how many bytes
/// it yields; stops with `TooLong` once it exceeds `limit`.
pub(crate) fn inflate_discard(
    z: &mut Decompress,
    input: &[u8],
    limit: u64,
) -> Result<u64, ZlibError> {
    let mut scratch = vec![0u8; 32 << 10];
    loop {
        let pos = position(z, input);
        let (in_before, out_before) = (z.total_in(), z.total_out());
        let status = z
            .decompress(&input[pos..], &mut scratch, FlushDecompress::None)
            .map_err(|e| ZlibError::Corrupt(e.to_string()))?;
        if z.total_out() > limit {
            return Err(ZlibError::TooLong {
                at_least: z.total_out(),
            });
        }
        if status == Status::StreamEnd {
            return Ok(z.total_out());
        }
        if z.total_in() == in_before && z.total_out() == out_before {
            return Err(stalled(pos, input));
        }
    }
}

fn stalled(pos: usize, input: &[u8]) -> ZlibError {
    if pos >= input.len() {
        ZlibError::Truncated
    } else {
        ZlibError::Corrupt("inflate made no progress".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn whole_inflate_takes_only_an_exact_intact_stream() {
        let data = b"tree entries and commit messages ".repeat(500);
        let mut input = deflate(&data);
        input.extend_from_slice(b"the next pack entry follows");
        let mut out = vec![1, 2, 3];
        assert!(inflate_whole(&input, data.len(), &mut out));
        assert_eq!(out, data);
        // Declared too small or too large, or a damaged stream: nothing.
        for size in [data.len() - 1, data.len() + 1] {
            assert!(!inflate_whole(&input, size, &mut out));
            assert!(out.is_empty());
        }
        let mut damaged = input.clone();
        damaged[40] ^= 0x55;
        assert!(!inflate_whole(&damaged, data.len(), &mut out));
        assert!(!inflate_whole(
            &input[..input.len() / 2],
            data.len(),
            &mut out
        ));
        assert!(inflate_whole(&deflate(b""), 0, &mut out) && out.is_empty());
        assert!(!inflate_whole(&input, WHOLE_INFLATE_LIMIT + 1, &mut out));
    }

    #[test]
    fn exact_size_round_trip_and_consumed_length() {
        let body = b"hello hello hello hello".repeat(100);
        let mut z = deflate(&body);
        let stream_len = z.len() as u64;
        z.extend_from_slice(b"trailing junk belongs to the next entry");
        let mut d = Decompress::new(true);
        let mut out = Vec::new();
        let ended = inflate_until(&mut d, &z, &mut out, body.len()).unwrap();
        if !ended {
            expect_end(&mut d, &z, out.len() as u64).unwrap();
        }
        assert_eq!(out, body);
        assert_eq!(d.total_in(), stream_len);
        assert_eq!(
            out.capacity(),
            body.len(),
            "no reservation past the declared size"
        );

        let mut d = Decompress::new(true);
        assert_eq!(
            inflate_discard(&mut d, &z, u64::MAX).unwrap(),
            body.len() as u64
        );
        assert_eq!(d.total_in(), stream_len);
    }

    #[test]
    fn longer_shorter_and_truncated_streams() {
        let body = vec![7u8; 100_000];
        let z = deflate(&body);
        // Declared smaller than the stream.
        let mut d = Decompress::new(true);
        let mut out = Vec::new();
        assert!(!inflate_until(&mut d, &z, &mut out, 10).unwrap());
        assert!(matches!(
            expect_end(&mut d, &z, 10),
            Err(ZlibError::TooLong { .. })
        ));
        // A huge declared size does not cause a huge reservation.
        let mut d = Decompress::new(true);
        let mut out = Vec::new();
        assert!(inflate_until(&mut d, &z, &mut out, usize::MAX / 2).unwrap());
        assert_eq!(out.len(), body.len());
        assert!(out.capacity() <= FIRST_RESERVATION);
        // Truncated input.
        let mut d = Decompress::new(true);
        let mut out = Vec::new();
        assert_eq!(
            inflate_until(&mut d, &z[..z.len() - 3], &mut out, body.len() + 1),
            Err(ZlibError::Truncated)
        );
        // Garbage.
        let mut d = Decompress::new(true);
        assert!(matches!(
            inflate_discard(&mut d, b"not zlib at all", 100),
            Err(ZlibError::Corrupt(_))
        ));
    }
}
