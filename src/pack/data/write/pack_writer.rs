//! Streaming `.pack` writer (git's `Documentation/gitformat-pack.txt`,
//! "pack-*.pack files have the following format"; `write_pack_file` in
//! `builtin/pack-objects.c` and `finish_tmp_packfile` in `pack-write.c`).
//!
//! The pack goes to `tmp_pack_XXXXXX` in the destination directory; on
//! [`PackWriter::finish`] it is published with its index and reverse index
//! (`publish.rs`). Dropping an unfinished writer removes its temporary
//! files.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::ZlibEncoder;

use super::encode::{MAX_ENTRY_HEADER_LEN, MAX_OFS_LEN, encode_entry_header, encode_ofs_distance};
use super::publish::{AfterSync, PackOutcome, WrittenPack, publish};
use super::stream::PackStream;
use crate::durable::{self, TempFiles};
use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;
use crate::pack::data::entry::{OBJ_OFS_DELTA, OBJ_REF_DELTA};
use crate::pack::data::file::PACK_HEADER_LEN;
use crate::pack::error::PackWriteError;
use crate::pack::index::write::{IndexEntry, check_kind, sort_and_check};

const PACK_SIGNATURE: [u8; 4] = *b"PACK";
const PACK_VERSION: u32 = 2;

/// Writes one pack, entry by entry, then its `.idx` and `.rev`.
pub struct PackWriter {
    // Declared before `temps` so the file is closed before removal on drop.
    out: PackStream,
    temps: TempFiles,
    temp_pack: PathBuf,
    dir: PathBuf,
    hash: HashKind,
    num_objects: u32,
    /// In pack (offset) order while writing; sorted by id in `finish`.
    entries: Vec<IndexEntry>,
    /// Entry header bytes, reused between entries.
    header: Vec<u8>,
    /// Set when a write failed part-way: the file no longer parses.
    broken: bool,
}

impl PackWriter {
    /// Starts `dir/tmp_pack_XXXXXX` (a temp file in the destination's
    /// `objects/pack` directory) and writes the header for `num_objects`
    /// entries.
    pub fn create(dir: &Path, hash: HashKind, num_objects: u32) -> Result<Self, PackWriteError> {
        let mut temps = TempFiles::default();
        let (temp_pack, file) = durable::create_temp(dir, "tmp_pack_")?;
        temps.add(temp_pack.clone());
        let mut out = PackStream::new(file, hash);
        out.write_all(&pack_header(num_objects))
            .map_err(PackWriteError::io(&temp_pack))?;
        let header = Vec::with_capacity(MAX_ENTRY_HEADER_LEN + MAX_OFS_LEN);
        let mut entries = Vec::new();
        // Exact, so a large pack does not pay for amortised doubling; a
        // refusal just falls back to growing as entries come.
        let _ = entries.try_reserve_exact(num_objects as usize);
        Ok(PackWriter {
            out,
            temps,
            temp_pack,
            dir: dir.to_owned(),
            hash,
            num_objects,
            entries,
            header,
            broken: false,
        })
    }

    /// A whole object, deflated at `level` (0-9). Returns the entry's offset.
    pub fn add_object(
        &mut self,
        id: ObjectId,
        kind: ObjectKind,
        body: &[u8],
        level: u32,
    ) -> Result<WrittenEntry, PackWriteError> {
        check_level(id, level)?;
        let offset = self.begin_entry(id)?;
        encode_entry_header(kind.pack_code(), body.len() as u64, &mut self.header);
        self.write_entry(id, offset, |out, header| {
            out.write_all(header)?;
            deflate_into(out, body, level)
        })
    }

    /// A whole object whose zlib stream already exists (copied from a
    /// source pack: blob bodies are the same in both hash worlds). `size`
    /// is the inflated size. The stream is copied as is, not checked.
    pub fn add_compressed(
        &mut self,
        id: ObjectId,
        kind: ObjectKind,
        size: u64,
        zlib: &[u8],
    ) -> Result<WrittenEntry, PackWriteError> {
        let offset = self.begin_entry(id)?;
        encode_entry_header(kind.pack_code(), size, &mut self.header);
        self.write_entry(id, offset, |out, header| {
            out.write_all(header)?;
            out.write_all(zlib)
        })
    }

    /// An OFS_DELTA entry against `base` (an earlier entry of this pack),
    /// deflating `delta` (git's delta format) at `level`.
    pub fn add_ofs_delta(
        &mut self,
        id: ObjectId,
        base: WrittenEntry,
        delta: &[u8],
        level: u32,
    ) -> Result<WrittenEntry, PackWriteError> {
        check_level(id, level)?;
        let offset = self.begin_delta(id, base, delta.len() as u64)?;
        self.write_entry(id, offset, |out, header| {
            out.write_all(header)?;
            deflate_into(out, delta, level)
        })
    }

    /// An OFS_DELTA entry whose delta is already a zlib stream (a source
    /// blob delta, reused: only the header and base distance change).
    /// `delta_size` is the inflated size of the delta.
    pub fn add_ofs_delta_compressed(
        &mut self,
        id: ObjectId,
        base: WrittenEntry,
        delta_size: u64,
        zlib: &[u8],
    ) -> Result<WrittenEntry, PackWriteError> {
        let offset = self.begin_delta(id, base, delta_size)?;
        self.write_entry(id, offset, |out, header| {
            out.write_all(header)?;
            out.write_all(zlib)
        })
    }

    /// A REF_DELTA entry whose delta is already a zlib stream, against
    /// the object `base_id`, which may be stored anywhere: such a pack is
    /// thin, for private use until its entries are copied into a pack
    /// that holds their bases (git's `index-pack --fix-thin` completes
    /// fetched thin packs the same way). `delta_size` is the inflated size
    /// of the delta.
    pub fn add_ref_delta_compressed(
        &mut self,
        id: ObjectId,
        base_id: ObjectId,
        delta_size: u64,
        zlib: &[u8],
    ) -> Result<WrittenEntry, PackWriteError> {
        check_kind(self.hash, &base_id)?;
        let offset = self.begin_entry(id)?;
        encode_entry_header(OBJ_REF_DELTA, delta_size, &mut self.header);
        self.header.extend_from_slice(base_id.as_bytes());
        self.write_entry(id, offset, |out, header| {
            out.write_all(header)?;
            out.write_all(zlib)
        })
    }

    /// Entries added so far.
    pub fn entries_written(&self) -> u32 {
        // Never more than `num_objects`, a u32: `begin_entry` refuses more.
        self.entries.len() as u32
    }

    /// Where entry number `entry` (in the order added) starts.
    pub fn entry_offset(&self, entry: u32) -> u64 {
        self.entries[entry as usize].offset
    }

    /// Bytes of the `.pack` written so far (the next entry's offset).
    pub fn bytes_written(&self) -> u64 {
        self.out.bytes_written()
    }

    /// Finishes: writes the trailer, then the `.idx` and `.rev`, fsyncs, and
    /// renames into place as `pack-<hex of trailer>.{pack,rev,idx}`.
    ///
    /// Duplicate ids are detected here, when the entries are sorted for the
    /// index, so the writer needs no set of ids beside its entry list. An
    /// existing pack with the same name has the same content and is
    /// replaced. If a rename fails, files already renamed stay (a pack
    /// without `.idx` is invisible to git); temporary files are removed.
    pub fn finish(mut self) -> Result<PackOutcome, PackWriteError> {
        if self.broken {
            return Err(PackWriteError::Broken {
                path: self.temp_pack.clone(),
            });
        }
        let actual = self.entries_written();
        if actual != self.num_objects {
            return Err(PackWriteError::CountMismatch {
                expected: self.num_objects,
                actual,
            });
        }
        let hash = self.hash;
        let mut entries = std::mem::take(&mut self.entries);
        // Checks before the trailer, so a rejected pack costs no fsync.
        sort_and_check(hash, &mut entries, &hash.null_id())?;

        let temp_pack = self.temp_pack.clone();
        let (pack_file, checksum) = self
            .out
            .finish_with_trailer()
            .map_err(PackWriteError::io(&temp_pack))?;
        let pack_size = pack_file
            .metadata()
            .map_err(PackWriteError::io(&temp_pack))?
            .len();
        let written = WrittenPack {
            dir: &self.dir,
            hash,
            file: pack_file,
            temp_pack: &temp_pack,
            checksum,
            pack_size,
            after_sync: AfterSync::KeepCached,
        };
        publish(written, self.temps, &entries)
    }

    /// Checks that `id` may be added; returns the offset of its entry and
    /// resets the header buffer and the entry CRC.
    fn begin_entry(&mut self, id: ObjectId) -> Result<u64, PackWriteError> {
        if self.broken {
            return Err(PackWriteError::Broken {
                path: self.temp_pack.clone(),
            });
        }
        check_kind(self.hash, &id)?;
        if self.entries_written() >= self.num_objects {
            return Err(PackWriteError::TooManyObjects {
                expected: self.num_objects,
                id,
            });
        }
        self.header.clear();
        self.out.begin_crc();
        Ok(self.out.bytes_written())
    }

    /// [`Self::begin_entry`] for an OFS_DELTA: checks the base is an entry
    /// start before this one and encodes the header and base distance.
    fn begin_delta(
        &mut self,
        id: ObjectId,
        base: WrittenEntry,
        delta_size: u64,
    ) -> Result<u64, PackWriteError> {
        let offset = self.begin_entry(id)?;
        let base_offset = base.offset;
        // The entry number makes the check one lookup: a fold places
        // millions of deltas, and bisecting the entry list for each was a
        // tenth of its copying thread.
        let is_entry = self
            .entries
            .get(base.number as usize)
            .is_some_and(|e| e.offset == base_offset);
        if !is_entry {
            return Err(PackWriteError::BadDeltaBase {
                id,
                offset,
                base_offset,
            });
        }
        encode_entry_header(OBJ_OFS_DELTA, delta_size, &mut self.header);
        encode_ofs_distance(offset - base_offset, &mut self.header);
        Ok(offset)
    }

    /// Runs `write` (the header then the zlib stream) and records the
    /// entry; any I/O error leaves the writer broken.
    fn write_entry(
        &mut self,
        id: ObjectId,
        offset: u64,
        write: impl FnOnce(&mut PackStream, &[u8]) -> io::Result<()>,
    ) -> Result<WrittenEntry, PackWriteError> {
        if let Err(e) = write(&mut self.out, &self.header) {
            self.broken = true;
            return Err(PackWriteError::io(&self.temp_pack)(e));
        }
        let number = self.entries_written();
        self.entries.push(IndexEntry {
            id,
            offset,
            crc32: self.out.crc(),
        });
        Ok(WrittenEntry { number, offset })
    }
}

/// The header a pack of `num_objects` entries starts with: signature,
/// version, entry count.
pub(crate) fn pack_header(num_objects: u32) -> [u8; PACK_HEADER_LEN as usize] {
    let mut header = [0; PACK_HEADER_LEN as usize];
    header[..4].copy_from_slice(&PACK_SIGNATURE);
    header[4..8].copy_from_slice(&PACK_VERSION.to_be_bytes());
    header[8..].copy_from_slice(&num_objects.to_be_bytes());
    header
}

fn check_level(id: ObjectId, level: u32) -> Result<(), PackWriteError> {
    if level <= 9 {
        Ok(())
    } else {
        Err(PackWriteError::InvalidLevel { id, level })
    }
}

/// Streams `data` through zlib straight into the pack.
fn deflate_into<W: Write>(out: &mut W, data: &[u8], level: u32) -> io::Result<()> {
    let mut z = ZlibEncoder::new(out, Compression::new(level));
    z.write_all(data)?;
    z.finish()?;
    Ok(())
}

/// An entry written: its number (entries are numbered in the order they
/// were added, from 0) and its offset in the pack. A delta names its base
/// by both, so that the writer checks the base in one lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrittenEntry {
    pub number: u32,
    pub offset: u64,
}
