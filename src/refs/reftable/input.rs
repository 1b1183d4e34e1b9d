//! Reading the fields of a record: varints, byte strings with a varint
//! length, object ids; each read fails when it would run past the data.

use super::varint;
use crate::hash::{HashKind, ObjectId};

/// A position in a block's records.
pub struct Input<'a> {
    data: &'a [u8],
    pub pos: usize,
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8], pos: usize) -> Self {
        Input { data, pos }
    }

    /// Whether every byte has been read.
    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub fn varint(&mut self) -> Result<u64, String> {
        varint::read(self.data, &mut self.pos).ok_or_else(|| "truncated varint".to_string())
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let bytes = self
            .pos
            .checked_add(n)
            .and_then(|end| self.data.get(self.pos..end))
            .ok_or("record runs past the end of its block")?;
        self.pos += n;
        Ok(bytes)
    }

    pub fn id(&mut self, hash: HashKind) -> Result<ObjectId, String> {
        let raw = self.take(hash.raw_len())?;
        Ok(ObjectId::from_raw(hash, raw).expect("raw_len bytes"))
    }

    /// A varint length, then that many bytes.
    pub fn string(&mut self) -> Result<&'a [u8], String> {
        let len = self.varint()?;
        self.take(usize::try_from(len).map_err(|_| "string too long")?)
    }
}
