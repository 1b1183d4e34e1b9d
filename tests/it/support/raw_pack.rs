//! Packs, pack entries, deltas and pack indexes built byte by byte, with
//! correct trailers and CRC32s unless a test breaks them on purpose.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::ZlibEncoder;
use sha1::{Digest as _, Sha1};

use super::raw_object::{hex, object_name};

/// `data` as a zlib stream at `level` (0-9; git's default is 6).
pub fn zlib_at_level(data: &[u8], level: u32) -> Vec<u8> {
    let mut z = ZlibEncoder::new(Vec::new(), Compression::new(level));
    z.write_all(data).unwrap();
    z.finish().unwrap()
}

/// `data` as a zlib stream at the default level.
pub fn zlib(data: &[u8]) -> Vec<u8> {
    zlib_at_level(data, Compression::default().level())
}

/// An entry header: type code and (declared) size.
pub fn entry_header(code: u8, size: u64) -> Vec<u8> {
    let mut out = vec![(code << 4) | (size & 0x0f) as u8];
    let mut rest = size >> 4;
    while rest != 0 {
        *out.last_mut().unwrap() |= 0x80;
        out.push((rest & 0x7f) as u8);
        rest >>= 7;
    }
    out
}

/// An OFS_DELTA distance (most significant group first, minus one per group).
pub fn ofs_distance(mut d: u64) -> Vec<u8> {
    let mut out = vec![(d & 0x7f) as u8];
    d >>= 7;
    while d != 0 {
        d -= 1;
        out.insert(0, 0x80 | (d & 0x7f) as u8);
        d >>= 7;
    }
    out
}

/// A delta size varint.
pub fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

/// A delta: header sizes then instructions.
pub fn delta(base_size: u64, result_size: u64, ops: &[u8]) -> Vec<u8> {
    let mut d = varint(base_size);
    d.extend(varint(result_size));
    d.extend_from_slice(ops);
    d
}

/// Delta instructions in git's format, for [`delta`].
#[derive(Default)]
pub struct DeltaOps(pub Vec<u8>);

impl DeltaOps {
    /// Copy op: `1 sss oooo`, then the non-zero offset/size bytes,
    /// little-endian; a size of 0x10000 is written as no size bytes.
    pub fn copy(mut self, offset: usize, size: usize) -> Self {
        assert!(size > 0 && size <= 0xff_ffff);
        let at = self.0.len();
        self.0.push(0x80);
        for i in 0..4 {
            let b = (offset >> (8 * i)) as u8;
            if b != 0 {
                self.0[at] |= 1 << i;
                self.0.push(b);
            }
        }
        if size != 0x10000 {
            for i in 0..3 {
                let b = (size >> (8 * i)) as u8;
                if b != 0 {
                    self.0[at] |= 0x10 << i;
                    self.0.push(b);
                }
            }
        }
        self
    }

    /// Insert ops of at most 127 literal bytes each.
    pub fn insert(mut self, data: &[u8]) -> Self {
        for chunk in data.chunks(127) {
            self.0.push(chunk.len() as u8);
            self.0.extend_from_slice(chunk);
        }
        self
    }
}

/// One entry as stored: its bytes and the name the index gives it.
#[derive(Clone)]
pub struct RawEntry {
    pub bytes: Vec<u8>,
    pub name: [u8; 20],
}

/// A whole blob entry with its real name.
pub fn blob_entry(body: &[u8]) -> RawEntry {
    let mut bytes = entry_header(3, body.len() as u64);
    bytes.extend(zlib(body));
    RawEntry {
        bytes,
        name: object_name("blob", body),
    }
}

/// An OFS_DELTA entry `distance` bytes after its base.
pub fn ofs_delta_entry(distance: u64, delta: &[u8], name: [u8; 20]) -> RawEntry {
    let mut bytes = entry_header(6, delta.len() as u64);
    bytes.extend(ofs_distance(distance));
    bytes.extend(zlib(delta));
    RawEntry { bytes, name }
}

/// A REF_DELTA entry against `base`.
pub fn ref_delta_entry(base: [u8; 20], delta: &[u8], name: [u8; 20]) -> RawEntry {
    let mut bytes = entry_header(7, delta.len() as u64);
    bytes.extend_from_slice(&base);
    bytes.extend(zlib(delta));
    RawEntry { bytes, name }
}

/// Offsets the entries get in a pack, in order.
pub fn offsets(entries: &[RawEntry]) -> Vec<u64> {
    let mut at = 12u64;
    entries
        .iter()
        .map(|e| {
            let o = at;
            at += e.bytes.len() as u64;
            o
        })
        .collect()
}

/// The `.pack` bytes (header, entries, SHA-1 trailer).
pub fn pack_bytes(entries: &[RawEntry]) -> Vec<u8> {
    let mut pack = b"PACK\0\0\0\x02".to_vec();
    pack.extend((entries.len() as u32).to_be_bytes());
    for e in entries {
        pack.extend_from_slice(&e.bytes);
    }
    let trailer: [u8; 20] = Sha1::digest(&pack).into();
    pack.extend_from_slice(&trailer);
    pack
}

/// An index v2 of (name, CRC32, offset) rows, sorted here, for a pack
/// whose trailer is `pack_trailer`.
pub fn idx_v2_bytes(mut rows: Vec<([u8; 20], u32, u64)>, pack_trailer: &[u8]) -> Vec<u8> {
    rows.sort();
    let mut idx = vec![0xff, b't', b'O', b'c', 0, 0, 0, 2];
    for first in 0..256usize {
        let n = rows.iter().filter(|r| usize::from(r.0[0]) <= first).count() as u32;
        idx.extend(n.to_be_bytes());
    }
    for r in &rows {
        idx.extend_from_slice(&r.0);
    }
    for r in &rows {
        idx.extend(r.1.to_be_bytes());
    }
    for r in &rows {
        idx.extend((r.2 as u32).to_be_bytes());
    }
    idx.extend_from_slice(pack_trailer);
    let trailer: [u8; 20] = Sha1::digest(&idx).into();
    idx.extend_from_slice(&trailer);
    idx
}

/// An index v2 for `pack` (CRC32s over each entry's bytes).
pub fn idx_bytes(entries: &[RawEntry], pack: &[u8]) -> Vec<u8> {
    let rows = entries
        .iter()
        .zip(offsets(entries))
        .map(|(e, o)| (e.name, crc32fast::hash(&e.bytes), o))
        .collect();
    idx_v2_bytes(rows, &pack[pack.len() - 20..])
}

/// Paths of `objects/pack/pack-<name>.{pack,idx}` under `git_dir`.
pub struct PackPaths {
    pub pack: PathBuf,
    pub idx: PathBuf,
}

/// Writes the entries as a pack + index into the repository.
pub fn write_pack(git_dir: &Path, entries: &[RawEntry]) -> PackPaths {
    let pack = pack_bytes(entries);
    let idx = idx_bytes(entries, &pack);
    let name = hex(&pack[pack.len() - 20..]);
    let dir = git_dir.join("objects/pack");
    std::fs::create_dir_all(&dir).unwrap();
    let paths = PackPaths {
        pack: dir.join(format!("pack-{name}.pack")),
        idx: dir.join(format!("pack-{name}.idx")),
    };
    std::fs::write(&paths.pack, pack).unwrap();
    std::fs::write(&paths.idx, idx).unwrap();
    paths
}

/// Recomputes the last 20 bytes of `path` as the SHA-1 of the rest.
pub fn fix_trailer(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let n = bytes.len() - 20;
    let trailer: [u8; 20] = Sha1::digest(&bytes[..n]).into();
    bytes[n..].copy_from_slice(&trailer);
    std::fs::write(path, bytes).unwrap();
}

/// After editing the pack: new pack trailer, copied into the index, new
/// index trailer. Only the intended damage remains.
pub fn fix_trailers(paths: &PackPaths) {
    fix_trailer(&paths.pack);
    let pack = std::fs::read(&paths.pack).unwrap();
    let mut idx = std::fs::read(&paths.idx).unwrap();
    let n = idx.len();
    idx[n - 40..n - 20].copy_from_slice(&pack[pack.len() - 20..]);
    std::fs::write(&paths.idx, idx).unwrap();
    fix_trailer(&paths.idx);
}

/// Edits bytes of a file in place.
pub fn edit(path: &Path, f: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(path).unwrap();
    f(&mut bytes);
    std::fs::write(path, bytes).unwrap();
}

/// Flips `bits` in the byte `back` bytes before the end of `path`.
pub fn flip_from_end(path: &Path, back: usize, bits: u8) {
    edit(path, |b| {
        let n = b.len();
        b[n - back] ^= bits;
    });
}
