//! Reading one block of a table: its framing, restart table and
//! prefix-compressed keys; log blocks are inflated first.
//!
//! ```text
//! u8(type: 'r' ref, 'g' log, 'o' obj, 'i' index) u24(block_len)
//! records (each: varint(prefix_len) varint(suffix_len << 3 | value_type)
//!          suffix value)
//! u24(restart_offset)+ u16(restart_count)
//! padding?
//! ```
//!
//! `block_len` counts from the start of the block, the file header too in
//! the first block (whose offsets are then relative to the file's start),
//! and for a log block it is the inflated length: its records and restart
//! table are one zlib stream after the 4 framing bytes.
//!
//! Where the next block starts follows git's reader: right after this one
//! when a non-zero byte follows it (an unaligned file, or the start of the
//! next section), else at the next multiple of the block size (padding);
//! a log block ends where its zlib stream does.

use std::borrow::Cow;

use flate2::{Decompress, FlushDecompress, Status};

use super::input::Input;

pub const REF: u8 = b'r';
pub const LOG: u8 = b'g';

/// One block, ready to be walked record by record.
pub struct Block<'a> {
    /// From the block's first byte (the file's first byte for the first
    /// block) to the start of its restart table; inflated for a log block.
    records: Cow<'a, [u8]>,
    /// Where the first record starts in `records`.
    first_record: usize,
    /// The bytes the block takes in the file, padding included.
    pub file_len: usize,
}

/// The block at `body[start..]` (`body`: the file without its footer), or
/// `None` when `start` is past the end or the block there is not of type
/// `want` (the section ends there). `header_off` is the file header's size
/// for the block at offset 0, else 0.
pub fn read_block(
    body: &[u8],
    start: usize,
    header_off: usize,
    block_size: u32,
    want: u8,
) -> Result<Option<Block<'_>>, String> {
    let Some(kind) = body.get(start + header_off).copied() else {
        return Ok(None);
    };
    if kind != want {
        return Ok(None);
    }
    let framing = Input::new(body, start + header_off + 1)
        .take(3)
        .map_err(|_| format!("block at {start}: truncated header"))?;
    let block_len = u32::from_be_bytes([0, framing[0], framing[1], framing[2]]) as usize;
    let skip = header_off + 4;
    if block_len < skip + 2 {
        return Err(format!("block at {start}: length {block_len} is too short"));
    }
    let (data, file_len) = if kind == LOG {
        let (inflated, used) = inflate(&body[start..], skip, block_len)
            .map_err(|e| format!("log block at {start}: {e}"))?;
        (Cow::Owned(inflated), skip + used)
    } else {
        let data = body
            .get(start..start + block_len)
            .ok_or_else(|| format!("block at {start}: length {block_len} runs past the end"))?;
        let next = body.get(start + block_len).copied().unwrap_or(0);
        let aligned = block_size as usize;
        let file_len = if aligned == 0 || next != 0 || block_len >= aligned {
            block_len
        } else {
            aligned
        };
        (Cow::Borrowed(data), file_len)
    };
    let restart_count = u16::from_be_bytes([data[block_len - 2], data[block_len - 1]]) as usize;
    let restarts_start = (block_len - 2)
        .checked_sub(3 * restart_count)
        .filter(|&at| at >= skip && restart_count > 0)
        .ok_or_else(|| format!("block at {start}: bad restart count {restart_count}"))?;
    let mut previous = 0;
    for chunk in data[restarts_start..block_len - 2].chunks_exact(3) {
        let offset = u32::from_be_bytes([0, chunk[0], chunk[1], chunk[2]]) as usize;
        if offset < skip || offset >= restarts_start || offset < previous {
            return Err(format!("block at {start}: bad restart offset {offset}"));
        }
        previous = offset;
    }
    let records = match data {
        Cow::Borrowed(d) => Cow::Borrowed(&d[..restarts_start]),
        Cow::Owned(mut d) => {
            d.truncate(restarts_start);
            Cow::Owned(d)
        }
    };
    Ok(Some(Block {
        records,
        first_record: skip,
        file_len,
    }))
}

/// Inflates the log block at the start of `input`: `skip` framing bytes
/// kept as they are, then the zlib stream, which must yield exactly
/// `block_len - skip` bytes. Returns the block and the stream's length.
fn inflate(input: &[u8], skip: usize, block_len: usize) -> Result<(Vec<u8>, usize), String> {
    let mut out = Vec::with_capacity(block_len);
    out.extend_from_slice(&input[..skip]);
    let mut z = Decompress::new(true);
    let status = z
        .decompress_vec(&input[skip..], &mut out, FlushDecompress::Finish)
        .map_err(|e| format!("zlib: {e}"))?;
    if status != Status::StreamEnd || out.len() != block_len {
        return Err(format!(
            "inflates to {} bytes or more, the header says {block_len}",
            out.len()
        ));
    }
    Ok((out, z.total_in() as usize))
}

impl Block<'_> {
    /// A walk over the records, from the first.
    pub fn cursor(&self) -> Cursor<'_> {
        Cursor {
            input: Input::new(&self.records, self.first_record),
            key: Vec::new(),
        }
    }
}

/// The position of a walk through a block's records.
pub struct Cursor<'b> {
    /// The records (the restart table cut off): values are read from here.
    pub input: Input<'b>,
    /// The key of the current record, prefix expanded.
    pub key: Vec<u8>,
}

impl Cursor<'_> {
    /// Reads the next record's key into `key` and returns its 3-bit type,
    /// leaving `input` at its value; `None` after the last record.
    pub fn next_key(&mut self) -> Result<Option<u8>, String> {
        if self.input.at_end() {
            return Ok(None);
        }
        let prefix = self.input.varint()?;
        let suffix = self.input.varint()?;
        let prefix = usize::try_from(prefix)
            .ok()
            .filter(|&p| p <= self.key.len())
            .ok_or_else(|| format!("key prefix {prefix} is longer than the previous key"))?;
        let suffix_len = usize::try_from(suffix >> 3).map_err(|_| "key too long")?;
        let suffix_bytes = self.input.take(suffix_len)?;
        self.key.truncate(prefix);
        self.key.extend_from_slice(suffix_bytes);
        Ok(Some((suffix & 7) as u8))
    }
}
