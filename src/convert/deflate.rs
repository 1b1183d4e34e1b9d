//! zlib compression of pack entry data.

use std::io::Write;

use flate2::Compression;
use flate2::write::ZlibEncoder;

/// The zlib stream of `data` at `level` (0-9), as a pack entry stores it.
pub fn deflate(data: &[u8], level: u32) -> Vec<u8> {
    let mut enc = ZlibEncoder::new(
        Vec::with_capacity(data.len() / 2 + 64),
        Compression::new(level.min(9)),
    );
    enc.write_all(data).expect("writing to a Vec cannot fail");
    enc.finish().expect("writing to a Vec cannot fail")
}
