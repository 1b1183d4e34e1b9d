//! Writing one table, laid out as git's writer lays it out: the ref
//! blocks, each padded to the block size when another block follows; when
//! there are more than 3, an index of them (more levels while a level has
//! more than 3 blocks, the top level last, which the footer names); then
//! the log blocks, unpadded and deflated, indexed the same way; the
//! footer. No obj section: it only speeds up "which refs point at this
//! object", and git falls back to scanning the refs without it.

use super::block_write::BlockWriter;
use super::layout::{Footer, MAX_BLOCK_SIZE, header_size};
use super::records::{LogRecord, RefRecord};
use super::{block_read, varint};
use crate::hash::HashKind;

/// git's block size, used unless a record needs more.
const DEFAULT_BLOCK_SIZE: usize = 4096;

/// An index is written for a section of more blocks than this (git's
/// threshold for aligned files).
const INDEX_THRESHOLD: usize = 3;

const INDEX: u8 = b'i';

/// The content of a table.
pub struct TableInput<'a> {
    pub hash: HashKind,
    pub min_update_index: u64,
    pub max_update_index: u64,
    /// Sorted by name, update indexes within the bounds above.
    pub refs: &'a [RefRecord],
    /// Sorted by key (name, then newest first).
    pub logs: &'a [LogRecord],
}

/// A record ready for a block: key, value type, value.
type Encoded = (Vec<u8>, u8, Vec<u8>);

/// The bytes of the table, or why it cannot be written (a record larger
/// than the largest block).
pub fn write_table(input: &TableInput<'_>) -> Result<Vec<u8>, String> {
    let refs: Vec<Encoded> = input
        .refs
        .iter()
        .map(|r| {
            let mut value = Vec::new();
            r.encode_value(input.min_update_index, &mut value);
            (r.name.as_bytes().to_vec(), r.value_type(), value)
        })
        .collect();
    let logs: Vec<Encoded> = input
        .logs
        .iter()
        .map(|l| {
            let mut value = Vec::new();
            l.encode_value(&mut value);
            (l.key(), l.value_type(), value)
        })
        .collect();
    let mut footer = Footer {
        version: Footer::version_for(input.hash),
        block_size: 0,
        min_update_index: input.min_update_index,
        max_update_index: input.max_update_index,
        hash: input.hash,
        ref_index_position: 0,
        obj_position: 0,
        obj_id_len: 0,
        obj_index_position: 0,
        log_position: 0,
        log_index_position: 0,
    };
    let block_size = block_size_for(refs.iter().chain(&logs), header_size(footer.version))?;
    footer.block_size = block_size as u32;
    let mut out = Output {
        bytes: Vec::new(),
        pending_padding: 0,
        header: footer.header_bytes(),
        block_size,
    };
    if !refs.is_empty() {
        let (_, index) = out.section(block_read::REF, &refs)?;
        footer.ref_index_position = index;
    }
    if !logs.is_empty() {
        // Log blocks are not aligned: no padding before the first.
        out.pending_padding = 0;
        let (start, index) = out.section(block_read::LOG, &logs)?;
        footer.log_position = start;
        footer.log_index_position = index;
    }
    if out.bytes.is_empty() {
        out.bytes.extend_from_slice(&out.header);
    }
    out.bytes.extend_from_slice(&footer.footer_bytes());
    Ok(out.bytes)
}

/// The default block size, or a larger multiple of it when a record (with
/// a block's framing, a restart and the file header) would not fit.
fn block_size_for<'a>(
    records: impl Iterator<Item = &'a Encoded>,
    header: usize,
) -> Result<usize, String> {
    let largest = records
        .map(|(key, _, value)| key.len() + value.len() + 2 * 10)
        .max()
        .unwrap_or(0);
    let needed = largest + header + 4 + 3 + 2;
    let size = needed.div_ceil(DEFAULT_BLOCK_SIZE).max(1) * DEFAULT_BLOCK_SIZE;
    if size > MAX_BLOCK_SIZE {
        return Err(format!(
            "a record of {largest} bytes does not fit the largest reftable block"
        ));
    }
    Ok(size)
}

/// The file being written, with git's lazy padding: a block's padding is
/// written only when another block follows it.
struct Output {
    bytes: Vec<u8>,
    pending_padding: usize,
    header: Vec<u8>,
    block_size: usize,
}

impl Output {
    /// Writes `records` as blocks of `kind`, then their index levels.
    /// Returns the position of the section's first block and of its top
    /// index level (0 when there is none).
    fn section(&mut self, kind: u8, records: &[Encoded]) -> Result<(u64, u64), String> {
        let start = self.next();
        let mut entries =
            self.blocks(kind, records.iter().map(|(k, t, v)| (&k[..], *t, &v[..])))?;
        let mut index_start = 0;
        while entries.len() > INDEX_THRESHOLD {
            index_start = self.next();
            let positions: Vec<(Vec<u8>, Vec<u8>)> = entries
                .into_iter()
                .map(|(key, position)| {
                    let mut value = Vec::new();
                    varint::write(&mut value, position);
                    (key, value)
                })
                .collect();
            entries = self.blocks(INDEX, positions.iter().map(|(k, v)| (&k[..], 0, &v[..])))?;
        }
        Ok((start, index_start))
    }

    /// Where the next block will start.
    fn next(&self) -> u64 {
        (self.bytes.len() + self.pending_padding) as u64
    }

    /// Writes the records as blocks of `kind`; returns each block's last
    /// key and position (the entries of an index of them).
    fn blocks<'r>(
        &mut self,
        kind: u8,
        records: impl Iterator<Item = (&'r [u8], u8, &'r [u8])>,
    ) -> Result<Vec<(Vec<u8>, u64)>, String> {
        let mut entries = Vec::new();
        let mut block = self.new_block(kind);
        for (key, value_type, value) in records {
            if block.add(key, value_type, value) {
                continue;
            }
            entries.push(self.flush(block));
            block = self.new_block(kind);
            if !block.add(key, value_type, value) {
                return Err(format!(
                    "record {:?} does not fit a block",
                    String::from_utf8_lossy(key)
                ));
            }
        }
        if !block.is_empty() {
            entries.push(self.flush(block));
        }
        Ok(entries)
    }

    fn new_block(&self, kind: u8) -> BlockWriter {
        let header_off = if self.next() == 0 {
            self.header.len()
        } else {
            0
        };
        BlockWriter::new(kind, header_off, self.block_size)
    }

    /// Appends a finished block; returns its index entry.
    fn flush(&mut self, block: BlockWriter) -> (Vec<u8>, u64) {
        let last_key = block.last_key().to_vec();
        let is_log = block.kind() == block_read::LOG;
        let mut bytes = block.finish();
        if self.next() == 0 {
            bytes[..self.header.len()].copy_from_slice(&self.header);
        }
        self.bytes
            .resize(self.bytes.len() + self.pending_padding, 0);
        let position = self.bytes.len() as u64;
        self.pending_padding = if is_log {
            0
        } else {
            self.block_size.saturating_sub(bytes.len())
        };
        self.bytes.extend_from_slice(&bytes);
        (last_key, position)
    }
}
