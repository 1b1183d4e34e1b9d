//! Helpers of the `hostile_*` suites: run the binary on broken input and
//! check it failed the way a user can act on; build packs and indexes byte
//! by byte, including ones git would never write.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use flate2::Compression;
use flate2::write::ZlibEncoder;
use sha1::{Digest as _, Sha1};

use crate::common::*;

/// `git-rehash convert [extra] SOURCE DEST`.
pub fn run_convert(source: &Path, dest: &Path, extra: &[&str]) -> Output {
    let args: Vec<&str> = std::iter::once("--quiet")
        .chain(extra.iter().copied())
        .collect();
    rehash_convert(source, dest, &args)
}

/// A source repository under test and its fingerprint before the run.
pub struct Source {
    /// What is passed as SOURCE.
    pub path: PathBuf,
    /// The git directory (where packs and objects live).
    pub git_dir: PathBuf,
    before: Option<BTreeMap<PathBuf, [u8; 32]>>,
}

impl Source {
    /// A repository (or any directory) passed as SOURCE as is.
    pub fn at(path: PathBuf) -> Source {
        let git_dir = if path.join(".git").is_dir() {
            path.join(".git")
        } else {
            path.clone()
        };
        Source {
            path,
            git_dir,
            before: None,
        }
    }

    /// Records the fingerprint; call after the repository is broken.
    pub fn freeze(&mut self) {
        self.before = Some(tree_checksums(&self.path));
    }

    /// Runs `convert` into a fresh DEST and checks the refusal: exit 1, a
    /// `git-rehash: error:` message holding every `mentions`, no panic or
    /// backtrace, SOURCE byte-identical, DEST not a repository. Returns
    /// stderr.
    pub fn refused(&mut self, mentions: &[&str]) -> String {
        let dest = scratch_dir("hostile-dest").join("dest.git");
        self.refused_into(&dest, &[], mentions)
    }

    pub fn refused_into(&mut self, dest: &Path, extra: &[&str], mentions: &[&str]) -> String {
        if self.before.is_none() {
            self.freeze();
        }
        let out = run_convert(&self.path, dest, extra);
        let stderr = assert_clean_failure(&out, mentions);
        assert_eq!(
            self.before.as_ref(),
            Some(&tree_checksums(&self.path)),
            "SOURCE was modified"
        );
        assert!(
            !dest.join("config").exists(),
            "a failed DEST must not look like a repository"
        );
        stderr
    }

    /// Runs `convert` and expects success; checks SOURCE is unchanged.
    pub fn converts(&mut self, extra: &[&str]) -> (PathBuf, String) {
        if self.before.is_none() {
            self.freeze();
        }
        let dest = scratch_dir("hostile-dest").join("dest.git");
        let out = rehash_command()
            .arg("convert")
            .args(extra)
            .arg(&self.path)
            .arg(&dest)
            .output()
            .expect("run git-rehash");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "convert failed: {stderr}");
        assert_eq!(
            self.before.as_ref(),
            Some(&tree_checksums(&self.path)),
            "SOURCE was modified"
        );
        (dest, stderr)
    }
}

/// Exit status 1, one `git-rehash: error:` message mentioning `mentions`,
/// no panic, no backtrace hint. Returns stderr.
pub fn assert_clean_failure(out: &Output, mentions: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "exit status; stderr: {stderr}");
    assert!(stderr.starts_with("git-rehash: error: "), "{stderr}");
    for m in mentions {
        assert!(stderr.contains(m), "error should mention {m:?}:\n{stderr}");
    }
    for bad in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        assert!(!stderr.contains(bad), "{bad} reached the user:\n{stderr}");
    }
    stderr
}

/// An empty bare repository.
pub fn bare_repo(label: &str) -> Source {
    let path = scratch_dir(label).join("source.git");
    std::fs::create_dir_all(&path).unwrap();
    git(&path, &["init", "-q", "--bare"]);
    Source {
        git_dir: path.clone(),
        path,
        before: None,
    }
}

/// A repository with a work tree, a few commits and files, all loose.
pub fn small_repo(label: &str) -> Source {
    let path = scratch_dir(label).join("source");
    std::fs::create_dir_all(&path).unwrap();
    git(&path, &["init", "-q", "-b", "main"]);
    for i in 0..3 {
        std::fs::write(path.join("file.txt"), format!("version {i}\n").repeat(20)).unwrap();
        std::fs::write(path.join(format!("f{i}.txt")), format!("file {i}\n")).unwrap();
        git(&path, &["add", "-A"]);
        git(&path, &["commit", "-q", "-m", &format!("commit {i}")]);
    }
    Source {
        git_dir: path.join(".git"),
        path,
        before: None,
    }
}

/// Hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-1 name git gives an object.
pub fn object_name(kind: &str, body: &[u8]) -> [u8; 20] {
    let mut h = Sha1::new();
    h.update(format!("{kind} {}\0", body.len()).as_bytes());
    h.update(body);
    h.finalize().into()
}

/// Writes an object literally (no checks) and returns its name.
pub fn write_literally(git_dir: &Path, kind: &str, body: &[u8]) -> String {
    let out = git_with_input(
        git_dir,
        &["hash-object", "-t", kind, "--literally", "-w", "--stdin"],
        body,
    );
    String::from_utf8(out).unwrap().trim().to_string()
}

// ------------------------------------------------------------------ packs

pub fn zlib(data: &[u8]) -> Vec<u8> {
    let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
    z.write_all(data).unwrap();
    z.finish().unwrap()
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

/// A name no real object has, distinct per `n`.
pub fn fake_name(n: u64) -> [u8; 20] {
    let mut h = Sha1::new();
    h.update(b"not an object ");
    h.update(n.to_le_bytes());
    h.finalize().into()
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

/// An index v2 for `pack` (CRC32s over each entry's bytes).
pub fn idx_bytes(entries: &[RawEntry], pack: &[u8]) -> Vec<u8> {
    let offs = offsets(entries);
    let mut rows: Vec<([u8; 20], u32, u64)> = entries
        .iter()
        .zip(&offs)
        .map(|(e, &o)| (e.name, crc32fast::hash(&e.bytes), o))
        .collect();
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
    idx.extend_from_slice(&pack[pack.len() - 20..]);
    let trailer: [u8; 20] = Sha1::digest(&idx).into();
    idx.extend_from_slice(&trailer);
    idx
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
