//! Entry points for fuzzing the parsers that read untrusted repository
//! data. Each takes arbitrary bytes and must return without panicking,
//! whatever they are; each checks an invariant of a successful parse.
//!
//! Used by the `cargo fuzz` targets in `fuzz/` (libFuzzer, nightly) and by
//! `tests/it/fuzz_smoke.rs`, which runs every entry point over deterministic
//! pseudo-random and mutated inputs on stable, in `cargo test`.
//! Not part of the stable API.

use std::io::Write as _;
use std::path::PathBuf;

use crate::hash::{HashKind, ObjectId};
use crate::object::{ObjectKind, for_each_reference, tree_entries};
use crate::pack::{IndexFile, PackFile, apply_delta, delta_sizes};
use crate::translate::{TranslateOptions, translate_commit, translate_tag, translate_tree};

/// Pack entry reader: `data` is the entry (header, zlib stream), placed
/// after a pack header as the pack's only entry; parse the header, inflate
/// it, find its compressed extent.
pub fn pack_entry(data: &[u8]) {
    let mut pack = Vec::with_capacity(data.len() + 32);
    pack.extend_from_slice(b"PACK\0\0\0\x02\0\0\0\x01");
    pack.extend_from_slice(data);
    pack.extend_from_slice(&[0u8; 20]); // trailer: not checked by the reader
    let path = scratch_file("pack", &pack);
    let Ok(file) = PackFile::open(&path, HashKind::Sha1) else {
        return;
    };
    let Ok(entry) = file.entry_at(12) else {
        return;
    };
    let mut out = Vec::new();
    if file.inflate(&entry, &mut out).is_ok() {
        assert_eq!(
            out.len() as u64,
            entry.size,
            "inflate yields the declared size"
        );
        let range = file
            .compressed_range(&entry)
            .expect("inflated once, so it has a range");
        assert!(range.start == entry.data_offset && range.end <= file.data_end() as u64);
    }
}

/// Delta applier: the first byte picks how much of the rest is the base.
pub fn delta(data: &[u8]) {
    let Some((&split, rest)) = data.split_first() else {
        return;
    };
    let split = usize::from(split).min(rest.len());
    let (base, delta) = rest.split_at(split);
    let mut out = Vec::new();
    if apply_delta(base, delta, &mut out).is_ok() {
        let (base_size, result_size, _) = delta_sizes(delta).expect("applied, so it has sizes");
        assert_eq!(base_size, base.len() as u64);
        assert_eq!(result_size, out.len() as u64);
    }
}

/// Index reader: `data` is a whole `.idx` file; open it and read every
/// entry back.
pub fn idx(data: &[u8]) {
    let path = scratch_file("idx", data);
    let Ok(idx) = IndexFile::open(&path, HashKind::Sha1) else {
        return;
    };
    let _ = idx.verify_checksum();
    let _ = idx.pack_checksum();
    for i in 0..idx.num_objects() {
        let id = idx.oid_at(i);
        let _ = idx.offset_at(i);
        let _ = idx.crc32_at(i);
        assert_eq!(idx.lookup(&id), Some(i), "every listed name is found");
    }
}

/// A SHA-1 -> SHA-256 map for the translators that knows every id whose
/// first byte is even, so both "mapped" and "no pair" paths run.
fn half_map(id: &ObjectId) -> Option<ObjectId> {
    let raw = id.as_bytes();
    if raw.first().is_some_and(|b| b % 2 == 1) {
        return None;
    }
    let mut wide = [0u8; 32];
    wide[..raw.len()].copy_from_slice(raw);
    ObjectId::from_raw(HashKind::Sha256, &wide)
}

/// Tree reader and translator.
pub fn tree(data: &[u8]) {
    for entry in tree_entries(data, HashKind::Sha1) {
        if entry.is_err() {
            break;
        }
    }
    let _ = for_each_reference(ObjectKind::Tree, data, HashKind::Sha1, |_, _| {});
    let mut out = Vec::new();
    let _ = translate_tree(data, HashKind::Sha1, HashKind::Sha256, &half_map, &mut out);
}

/// Commit reference walk and translator, both header policies, with and
/// without verbatim mergetags.
pub fn commit(data: &[u8]) {
    let _ = for_each_reference(ObjectKind::Commit, data, HashKind::Sha1, |_, _| {});
    let mut out = Vec::new();
    for (strict_headers, verbatim_mergetags) in [(false, false), (true, false), (false, true)] {
        let opts = TranslateOptions {
            strict_headers,
            verbatim_mergetags,
        };
        let _ = translate_commit(
            data,
            HashKind::Sha1,
            HashKind::Sha256,
            &half_map,
            opts,
            &mut out,
        );
    }
}

/// Tag reference walk and translator.
pub fn tag(data: &[u8]) {
    let _ = for_each_reference(ObjectKind::Tag, data, HashKind::Sha1, |_, _| {});
    let mut out = Vec::new();
    let _ = translate_tag(data, HashKind::Sha1, HashKind::Sha256, &half_map, &mut out);
}

/// Id parsing as map queries use it (full hex ids of either kind).
/// The map query parser of the `map` subcommand is being written on
/// another branch; this covers the id parsing it builds on.
pub fn object_id_hex(data: &[u8]) {
    for kind in [HashKind::Sha1, HashKind::Sha256] {
        if let Some(id) = ObjectId::from_hex(kind, data) {
            assert_eq!(id.to_hex().as_bytes(), data.to_ascii_lowercase());
        }
        if let Ok(text) = std::str::from_utf8(data) {
            let _ = ObjectId::parse_hex(kind, text);
        }
    }
}

/// Writes `bytes` to a per-thread scratch file (the readers take paths:
/// they mmap their files) and returns its path.
fn scratch_file(ext: &str, bytes: &[u8]) -> PathBuf {
    let name = format!(
        "git-rehash-fuzz-{}-{:?}.{ext}",
        std::process::id(),
        std::thread::current().id()
    )
    .replace(
        |c: char| !c.is_ascii_alphanumeric() && c != '.' && c != '-',
        "_",
    );
    let path = std::env::temp_dir().join(name);
    let written = std::fs::File::create(&path).and_then(|mut f| f.write_all(bytes));
    written.expect("the temporary directory is writable");
    path
}
