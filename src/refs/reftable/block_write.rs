//! Building one block: records with their keys prefix-compressed against
//! the previous key, a restart point (a full key) every 16 records, the
//! restart table, the framing; a log block is then deflated. The layout
//! is the one block_read.rs reads.

use super::layout::MAX_BLOCK_SIZE;
use super::varint;

/// A full key every this many records (git's default).
const RESTART_INTERVAL: usize = 16;

/// The most restart points a block can list (a 16-bit count).
const MAX_RESTARTS: usize = u16::MAX as usize;

/// A block being filled.
pub struct BlockWriter {
    kind: u8,
    /// From the block's first byte; the first `header_off` bytes are room
    /// for the file header when this is the file's first block.
    buf: Vec<u8>,
    header_off: usize,
    /// The block's size limit (uncompressed, for a log block).
    limit: usize,
    restarts: Vec<u32>,
    last_key: Vec<u8>,
    entries: usize,
}

impl BlockWriter {
    pub fn new(kind: u8, header_off: usize, limit: usize) -> Self {
        let mut buf = vec![0; header_off];
        buf.extend_from_slice(&[kind, 0, 0, 0]);
        BlockWriter {
            kind,
            buf,
            header_off,
            limit: limit.min(MAX_BLOCK_SIZE),
            restarts: Vec::new(),
            last_key: Vec::new(),
            entries: 0,
        }
    }

    pub fn kind(&self) -> u8 {
        self.kind
    }

    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// The key of the last record added.
    pub fn last_key(&self) -> &[u8] {
        &self.last_key
    }

    /// Adds a record after the previous one (keys must increase). Returns
    /// `false`, leaving the block as it was, when it does not fit.
    pub fn add(&mut self, key: &[u8], value_type: u8, value: &[u8]) -> bool {
        let prefix = if self.entries.is_multiple_of(RESTART_INTERVAL) {
            0
        } else {
            key.iter()
                .zip(&self.last_key)
                .take_while(|(a, b)| a == b)
                .count()
        };
        let restart = prefix == 0 && self.restarts.len() < MAX_RESTARTS;
        let start = self.buf.len();
        varint::write(&mut self.buf, prefix as u64);
        varint::write(
            &mut self.buf,
            (((key.len() - prefix) as u64) << 3) | u64::from(value_type),
        );
        self.buf.extend_from_slice(&key[prefix..]);
        self.buf.extend_from_slice(value);
        let restarts = self.restarts.len() + usize::from(restart);
        if self.buf.len() + 3 * restarts + 2 > self.limit {
            self.buf.truncate(start);
            return false;
        }
        if restart {
            self.restarts.push(start as u32);
        }
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.entries += 1;
        true
    }

    /// The finished block, from its first byte (header room included):
    /// restart table and length filled in, a log block's records deflated.
    pub fn finish(mut self) -> Vec<u8> {
        for offset in &self.restarts {
            self.buf.extend_from_slice(&offset.to_be_bytes()[1..]);
        }
        self.buf
            .extend_from_slice(&(self.restarts.len() as u16).to_be_bytes());
        let len = (self.buf.len() as u32).to_be_bytes();
        let at = self.header_off + 1;
        self.buf[at..at + 3].copy_from_slice(&len[1..]);
        if self.kind == super::block_read::LOG {
            let skip = self.header_off + 4;
            let deflated = crate::zlib::deflate(&self.buf[skip..], 9);
            self.buf.truncate(skip);
            self.buf.extend_from_slice(&deflated);
        }
        self.buf
    }
}
