//! Packs written by `pack::PackWriter`, checked with git as the oracle:
//! `verify-pack`, `cat-file --batch`, `fsck --strict`, and byte equality of
//! our `.idx`/`.rev` with what `git index-pack --rev-index` builds.

use std::path::{Path, PathBuf};

use crate::support::git::{git_bytes, git_with_input};
use crate::support::library::{
    HashKind, ObjectId, ObjectKind, PackOutcome, PackWriteError, PackWriter, WrittenEntry,
    object_id,
};
use crate::support::noise::noise;
use crate::support::raw_object::tree_entry;
use crate::support::raw_pack::{DeltaOps, delta, zlib_at_level};
use crate::support::repo_files::dir_names;

/// A bare repository of `hash`; returns (tempdir, repo dir, objects/pack dir).
fn bare_repo(hash: HashKind) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let format = format!("--object-format={}", hash.name());
    git_bytes(tmp.path(), &["init", "-q", "--bare", &format, "repo.git"]);
    let repo = tmp.path().join("repo.git");
    let pack_dir = repo.join("objects/pack");
    std::fs::create_dir_all(&pack_dir).unwrap();
    (tmp, repo, pack_dir)
}

/// A tree body of `(mode, name, id)` entries, in the order given.
fn tree(entries: &[(&str, &str, ObjectId)]) -> Vec<u8> {
    entries
        .iter()
        .flat_map(|(mode, name, id)| tree_entry(mode, name, id.as_bytes()))
        .collect()
}

fn commit(tree: ObjectId, parent: Option<ObjectId>, msg: &str) -> Vec<u8> {
    let mut c = format!("tree {tree}\n");
    if let Some(p) = parent {
        c.push_str(&format!("parent {p}\n"));
    }
    c.push_str("author A U Thor <author@example.com> 1700000000 +0100\n");
    c.push_str("committer C O Mitter <committer@example.com> 1700000100 +0100\n");
    c.push_str(&format!("\n{msg}\n"));
    c.into_bytes()
}

struct Expected {
    id: ObjectId,
    kind: ObjectKind,
    body: Vec<u8>,
    offset: u64,
    /// Offset of the delta base, for delta entries.
    base: Option<u64>,
}

/// Writes a pack mixing every kind of entry; returns what went in.
fn write_mixed_pack(hash: HashKind, pack_dir: &Path) -> (PackOutcome, Vec<Expected>) {
    let id = |kind, body: &[u8]| object_id(hash, kind, body).unwrap();
    let mut expected = Vec::new();
    let mut pack = PackWriter::create(pack_dir, hash, 14).unwrap();
    let record = |expected: &mut Vec<Expected>,
                  kind,
                  body: Vec<u8>,
                  at: WrittenEntry,
                  base: Option<WrittenEntry>,
                  pack: &PackWriter| {
        assert_eq!(pack.entries_written() as usize, expected.len() + 1);
        assert_eq!(at.number as usize, expected.len());
        expected.push(Expected {
            id: id(kind, &body),
            kind,
            body,
            offset: at.offset,
            base: base.map(|b| b.offset),
        });
    };

    // Whole blobs at several levels, the empty blob among them.
    let hello = b"hello world\nthis line is the same in both versions\ngoodbye\n".to_vec();
    let at_hello = pack
        .add_object(id(ObjectKind::Blob, &hello), ObjectKind::Blob, &hello, 6)
        .unwrap();
    assert_eq!(
        at_hello.offset, 12,
        "the first entry follows the 12-byte header"
    );
    record(
        &mut expected,
        ObjectKind::Blob,
        hello.clone(),
        at_hello,
        None,
        &pack,
    );
    let stored = b"stored, not compressed (level 0)\n".to_vec();
    let at = pack
        .add_object(id(ObjectKind::Blob, &stored), ObjectKind::Blob, &stored, 0)
        .unwrap();
    record(&mut expected, ObjectKind::Blob, stored, at, None, &pack);
    let at = pack
        .add_object(id(ObjectKind::Blob, b""), ObjectKind::Blob, b"", 9)
        .unwrap();
    record(&mut expected, ObjectKind::Blob, Vec::new(), at, None, &pack);

    // A blob whose zlib stream already exists (as if copied from a source pack).
    let copied = b"copied zlib stream: blob bodies are the same in both worlds\n".repeat(20);
    let z = zlib_at_level(&copied, 9);
    let at = pack
        .add_compressed(
            id(ObjectKind::Blob, &copied),
            ObjectKind::Blob,
            copied.len() as u64,
            &z,
        )
        .unwrap();
    record(&mut expected, ObjectKind::Blob, copied, at, None, &pack);

    // A delta made here: keep the head and tail, replace the middle line.
    let mid = hello.iter().position(|&b| b == b'\n').unwrap() + 1;
    let end = hello.len() - b"goodbye\n".len();
    let mut hello2 = hello[..mid].to_vec();
    hello2.extend_from_slice(b"a new middle line\n");
    hello2.extend_from_slice(&hello[end..]);
    let ops = DeltaOps::default()
        .copy(0, mid)
        .insert(b"a new middle line\n")
        .copy(end, hello.len() - end);
    let d = delta(hello.len() as u64, hello2.len() as u64, &ops.0);
    let at_hello2 = pack
        .add_ofs_delta(id(ObjectKind::Blob, &hello2), at_hello, &d, 9)
        .unwrap();
    record(
        &mut expected,
        ObjectKind::Blob,
        hello2.clone(),
        at_hello2,
        Some(at_hello),
        &pack,
    );

    // A delta on that delta (chain depth 2), deflated at level 1.
    let hello3 = [&hello2[..], b"and one more line\n"].concat();
    let ops = DeltaOps::default()
        .copy(0, hello2.len())
        .insert(b"and one more line\n");
    let d = delta(hello2.len() as u64, hello3.len() as u64, &ops.0);
    let at = pack
        .add_ofs_delta(id(ObjectKind::Blob, &hello3), at_hello2, &d, 1)
        .unwrap();
    record(
        &mut expected,
        ObjectKind::Blob,
        hello3,
        at,
        Some(at_hello2),
        &pack,
    );

    // A large base and a pre-compressed delta using a 0x10000-byte copy,
    // a copy with a 3-byte offset, and a long insert (several insert ops).
    let big = noise(200_000, 0x9e37_79b9_7f4a_7c15);
    let at_big = pack
        .add_object(id(ObjectKind::Blob, &big), ObjectKind::Blob, &big, 1)
        .unwrap();
    record(
        &mut expected,
        ObjectKind::Blob,
        big.clone(),
        at_big,
        None,
        &pack,
    );
    let inserted = noise(300, 42);
    let big2 = [
        &big[..0x10000],
        &inserted[..],
        &big[0x12345..0x12345 + 1000],
    ]
    .concat();
    let ops = DeltaOps::default()
        .copy(0, 0x10000)
        .insert(&inserted)
        .copy(0x12345, 1000);
    let d = delta(big.len() as u64, big2.len() as u64, &ops.0);
    let z = zlib_at_level(&d, 6);
    let at = pack
        .add_ofs_delta_compressed(id(ObjectKind::Blob, &big2), at_big, d.len() as u64, &z)
        .unwrap();
    record(
        &mut expected,
        ObjectKind::Blob,
        big2,
        at,
        Some(at_big),
        &pack,
    );

    // Trees, commits and a tag with ids of this hash kind; the second tree
    // is a delta against the first.
    let ids: Vec<ObjectId> = expected.iter().map(|e| e.id).collect();
    let sub = tree(&[("100644", "empty", ids[2]), ("100755", "run.sh", ids[1])]);
    let at = pack
        .add_object(id(ObjectKind::Tree, &sub), ObjectKind::Tree, &sub, 6)
        .unwrap();
    record(
        &mut expected,
        ObjectKind::Tree,
        sub.clone(),
        at,
        None,
        &pack,
    );
    let sub_id = id(ObjectKind::Tree, &sub);
    let sub_entry = tree(&[("40000", "sub", sub_id)]);
    let root1 = tree(&[
        ("100644", "a.txt", ids[0]),
        ("100644", "big.bin", ids[6]),
        ("40000", "sub", sub_id),
    ]);
    let at_root1 = pack
        .add_object(id(ObjectKind::Tree, &root1), ObjectKind::Tree, &root1, 6)
        .unwrap();
    record(
        &mut expected,
        ObjectKind::Tree,
        root1.clone(),
        at_root1,
        None,
        &pack,
    );
    let root2 = tree(&[
        ("100644", "a.txt", ids[4]),
        ("100644", "big.bin", ids[7]),
        ("100644", "copied.txt", ids[3]),
        ("100644", "more.txt", ids[5]),
        ("40000", "sub", sub_id),
    ]);
    // Root2 = four new entries, then root1's last entry (`sub`) copied
    // from the base.
    let head = &root2[..root2.len() - sub_entry.len()];
    let ops = DeltaOps::default()
        .insert(head)
        .copy(root1.len() - sub_entry.len(), sub_entry.len());
    let d = delta(root1.len() as u64, root2.len() as u64, &ops.0);
    let at = pack
        .add_ofs_delta(id(ObjectKind::Tree, &root2), at_root1, &d, 6)
        .unwrap();
    record(
        &mut expected,
        ObjectKind::Tree,
        root2.clone(),
        at,
        Some(at_root1),
        &pack,
    );

    let c1 = commit(id(ObjectKind::Tree, &root1), None, "first");
    let c1_id = id(ObjectKind::Commit, &c1);
    let at = pack.add_object(c1_id, ObjectKind::Commit, &c1, 6).unwrap();
    record(&mut expected, ObjectKind::Commit, c1, at, None, &pack);
    let c2 = commit(id(ObjectKind::Tree, &root2), Some(c1_id), "second");
    let c2_id = id(ObjectKind::Commit, &c2);
    let at = pack.add_object(c2_id, ObjectKind::Commit, &c2, 6).unwrap();
    record(&mut expected, ObjectKind::Commit, c2, at, None, &pack);
    let tag = format!(
        "object {c2_id}\ntype commit\ntag v1\ntagger T A Gger <tagger@example.com> 1700000200 +0000\n\nversion one\n"
    )
    .into_bytes();
    let at = pack
        .add_object(id(ObjectKind::Tag, &tag), ObjectKind::Tag, &tag, 6)
        .unwrap();
    record(&mut expected, ObjectKind::Tag, tag, at, None, &pack);

    assert_eq!(pack.entries_written(), 14);
    let before_trailer = pack.bytes_written();
    let outcome = pack.finish().unwrap();
    assert_eq!(outcome.pack_size, before_trailer + hash.raw_len() as u64);
    (outcome, expected)
}

fn check_with_git(hash: HashKind) {
    let (tmp, repo, pack_dir) = bare_repo(hash);
    let (outcome, expected) = write_mixed_pack(hash, &pack_dir);
    let hex = outcome.checksum.to_hex();
    assert_eq!(outcome.checksum.kind(), hash);
    assert_eq!(outcome.num_objects, 14);
    assert_eq!(outcome.pack_path, pack_dir.join(format!("pack-{hex}.pack")));
    assert_eq!(outcome.idx_path, pack_dir.join(format!("pack-{hex}.idx")));
    assert_eq!(outcome.rev_path, pack_dir.join(format!("pack-{hex}.rev")));
    let pack_bytes = std::fs::read(&outcome.pack_path).unwrap();
    assert_eq!(pack_bytes.len() as u64, outcome.pack_size);
    assert_eq!(
        &pack_bytes[pack_bytes.len() - hash.raw_len()..],
        outcome.checksum.as_bytes()
    );
    assert_eq!(
        dir_names(&pack_dir),
        [
            format!("pack-{hex}.idx"),
            format!("pack-{hex}.pack"),
            format!("pack-{hex}.rev")
        ]
    );

    // verify-pack lists every object with its type, size and offset; deltas
    // name their base.
    let git_dir = format!("--git-dir={}", repo.display());
    let idx = outcome.idx_path.to_str().unwrap();
    let listing =
        String::from_utf8(git_bytes(tmp.path(), &[&git_dir, "verify-pack", "-v", idx])).unwrap();
    for e in &expected {
        let line = listing
            .lines()
            .find(|l| l.starts_with(&e.id.to_hex()))
            .unwrap_or_else(|| panic!("{} missing from verify-pack:\n{listing}", e.id));
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields[1], e.kind.as_str(), "{line}");
        assert_eq!(fields[4], e.offset.to_string(), "{line}");
        match e.base {
            None => assert_eq!(fields[2], e.body.len().to_string(), "{line}"),
            Some(base) => {
                let base_id = expected.iter().find(|b| b.offset == base).unwrap().id;
                assert_eq!(fields[6], base_id.to_hex(), "{line}");
            }
        }
    }
    assert!(listing.contains("chain length = 2: 1 object"), "{listing}");
    assert!(
        listing.contains(&format!("{idx}: ok").replace(".idx", ".pack")),
        "{listing}"
    );

    // cat-file returns the exact bodies.
    let mut request = String::new();
    for e in &expected {
        request.push_str(&format!("{}\n", e.id));
    }
    let out = git_with_input(
        tmp.path(),
        &[&git_dir, "cat-file", "--batch"],
        request.as_bytes(),
    );
    let mut rest = &out[..];
    for e in &expected {
        let nl = rest.iter().position(|&b| b == b'\n').unwrap();
        let head = std::str::from_utf8(&rest[..nl]).unwrap();
        assert_eq!(head, format!("{} {} {}", e.id, e.kind, e.body.len()));
        assert_eq!(
            &rest[nl + 1..nl + 1 + e.body.len()],
            &e.body[..],
            "{}",
            e.id
        );
        rest = &rest[nl + 1 + e.body.len() + 1..];
    }
    assert!(rest.is_empty());

    // fsck --strict, with everything reachable.
    let c2 = expected[12].id.to_hex();
    let tag = expected[13].id.to_hex();
    git_bytes(
        tmp.path(),
        &[&git_dir, "update-ref", "refs/heads/main", &c2],
    );
    git_bytes(tmp.path(), &[&git_dir, "update-ref", "refs/tags/v1", &tag]);
    let fsck = git_bytes(
        tmp.path(),
        &[&git_dir, "fsck", "--strict", "--full", "--no-dangling"],
    );
    assert!(fsck.is_empty(), "{}", String::from_utf8_lossy(&fsck));

    same_as_index_pack(hash, &outcome);
}

/// git index-pack --rev-index on a copy of the pack builds byte-identical
/// `.idx` and `.rev` files.
fn same_as_index_pack(hash: HashKind, outcome: &PackOutcome) {
    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path().join("copy.pack");
    std::fs::copy(&outcome.pack_path, &copy).unwrap();
    let format = format!("--object-format={}", hash.name());
    let out = git_bytes(
        scratch.path(),
        &["index-pack", &format, "--rev-index", "copy.pack"],
    );
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("{}\n", outcome.checksum)
    );
    let theirs_idx = std::fs::read(scratch.path().join("copy.idx")).unwrap();
    let theirs_rev = std::fs::read(scratch.path().join("copy.rev")).unwrap();
    assert!(
        std::fs::read(&outcome.idx_path).unwrap() == theirs_idx,
        ".idx differs from git's"
    );
    assert!(
        std::fs::read(&outcome.rev_path).unwrap() == theirs_rev,
        ".rev differs from git's"
    );
}

#[test]
fn sha256_pack_is_accepted_by_git() {
    check_with_git(HashKind::Sha256);
}

#[test]
fn sha1_pack_is_accepted_by_git() {
    check_with_git(HashKind::Sha1);
}

#[test]
fn empty_pack_matches_index_pack() {
    let (_tmp, _repo, pack_dir) = bare_repo(HashKind::Sha256);
    let outcome = sha256_writer(&pack_dir, 0).finish().unwrap();
    assert_eq!(outcome.pack_size, 12 + 32);
    same_as_index_pack(HashKind::Sha256, &outcome);
}

/// The SHA-256 name of the blob `body`.
fn blob(body: &[u8]) -> ObjectId {
    object_id(HashKind::Sha256, ObjectKind::Blob, body).unwrap()
}

/// A writer of a SHA-256 pack of `count` objects into `pack_dir`.
fn sha256_writer(pack_dir: &Path, count: u32) -> PackWriter {
    PackWriter::create(pack_dir, HashKind::Sha256, count).unwrap()
}

/// Adds `body` as a whole blob; returns its entry.
fn add_blob(pack: &mut PackWriter, body: &[u8]) -> Result<WrittenEntry, PackWriteError> {
    pack.add_object(blob(body), ObjectKind::Blob, body, 6)
}

#[test]
fn duplicate_ids_are_rejected_and_temp_files_removed() {
    let (_tmp, _repo, pack_dir) = bare_repo(HashKind::Sha256);
    let mut pack = sha256_writer(&pack_dir, 2);
    assert_eq!(dir_names(&pack_dir).len(), 1);
    assert!(dir_names(&pack_dir)[0].starts_with("tmp_pack_"));
    add_blob(&mut pack, b"x").unwrap();
    add_blob(&mut pack, b"x").unwrap();
    match pack.finish() {
        Err(PackWriteError::DuplicateObject { id }) => assert_eq!(id, blob(b"x")),
        other => panic!("expected a duplicate error, got {other:?}"),
    }
    assert!(
        dir_names(&pack_dir).is_empty(),
        "{:?}",
        dir_names(&pack_dir)
    );
}

#[test]
fn dropping_an_unfinished_writer_removes_its_temp_file() {
    let (_tmp, _repo, pack_dir) = bare_repo(HashKind::Sha256);
    let mut pack = sha256_writer(&pack_dir, 3);
    add_blob(&mut pack, b"x").unwrap();
    drop(pack);
    assert!(dir_names(&pack_dir).is_empty());
}

#[test]
fn object_count_must_match_the_header() {
    let (_tmp, _repo, pack_dir) = bare_repo(HashKind::Sha256);
    let mut pack = sha256_writer(&pack_dir, 2);
    add_blob(&mut pack, b"x").unwrap();
    let err = pack.finish().unwrap_err();
    assert!(
        matches!(
            err,
            PackWriteError::CountMismatch {
                expected: 2,
                actual: 1
            }
        ),
        "{err}"
    );

    let mut pack = sha256_writer(&pack_dir, 1);
    add_blob(&mut pack, b"x").unwrap();
    let err = add_blob(&mut pack, b"y").unwrap_err();
    assert!(matches!(err, PackWriteError::TooManyObjects { expected: 1, id } if id == blob(b"y")));
    drop(pack);
    assert!(dir_names(&pack_dir).is_empty());
}

#[test]
fn rejected_entries_leave_the_pack_usable() {
    let (_tmp, _repo, pack_dir) = bare_repo(HashKind::Sha256);
    let mut pack = sha256_writer(&pack_dir, 2);
    let base = add_blob(&mut pack, b"base\n").unwrap();
    let delta = delta(5, 10, &DeltaOps::default().copy(0, 5).copy(0, 5).0);
    let id = blob(b"base\nbase\n");

    let inside = WrittenEntry {
        offset: base.offset + 1,
        ..base
    };
    let err = pack.add_ofs_delta(id, inside, &delta, 6).unwrap_err();
    assert!(
        matches!(err, PackWriteError::BadDeltaBase { base_offset, .. } if base_offset == base.offset + 1)
    );
    let next = WrittenEntry {
        number: pack.entries_written(),
        offset: pack.bytes_written(),
    };
    let err = pack.add_ofs_delta(id, next, &delta, 6).unwrap_err();
    assert!(matches!(err, PackWriteError::BadDeltaBase { .. }));
    let err = pack.add_ofs_delta(id, base, &delta, 10).unwrap_err();
    assert!(matches!(
        err,
        PackWriteError::InvalidLevel { level: 10, .. }
    ));
    let sha1 = object_id(HashKind::Sha1, ObjectKind::Blob, b"base\nbase\n").unwrap();
    let err = pack
        .add_object(sha1, ObjectKind::Blob, b"base\nbase\n", 6)
        .unwrap_err();
    assert!(matches!(
        err,
        PackWriteError::WrongHashKind {
            expected: HashKind::Sha256,
            ..
        }
    ));
    assert_eq!(pack.entries_written(), 1);

    pack.add_ofs_delta(id, base, &delta, 6).unwrap();
    let outcome = pack.finish().unwrap();
    same_as_index_pack(HashKind::Sha256, &outcome);
}
