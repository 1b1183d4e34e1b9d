//! Pack reading against packs written by the real git, with `git cat-file
//! --batch` as the oracle: OFS_DELTA and REF_DELTA packs, index v1 and v2
//! with large offsets, thin packs resolved through external bases, and
//! damaged packs that must fail with errors, not panics.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::no_external;
use crate::support::git::{git_bytes, git_with_input};
use crate::support::history::deltified_history;
use crate::support::library::{
    DeltaCache, EntryKind, HashKind, IndexFile, ObjectId, ObjectKind, Pack, PackError, PackFile,
    apply_delta, sha1_object_id,
};
use crate::support::raw_pack::idx_v2_bytes;
use crate::support::repo_files::{all_object_ids, cat_file_batch, pack_files};

/// A deltified history in `dir/repo`, its objects loose; returns the
/// repository.
fn history_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir(&repo).unwrap();
    deltified_history(&repo);
    repo
}

/// A deltified history in `dir`, repacked by git into one pack of
/// OFS_DELTA chains; returns the pack's index.
fn repacked_history(dir: &Path) -> PathBuf {
    deltified_history(dir);
    git_bytes(dir, &["repack", "-adf", "--window=10", "--depth=50"]);
    pack_files(&dir.join(".git"))[0].with_extension("idx")
}

/// Traverses, checking each index entry is visited once and hashes to its name.
fn check_traverse(pack: &Pack) {
    let n = pack.idx.num_objects() as usize;
    let seen = Mutex::new(vec![0u32; n]);
    pack.traverse::<PackError>(&no_external, &|i, offset, kind, body| {
        assert_eq!(pack.idx.offset_at(i), offset);
        let id = sha1_object_id(kind, body).unwrap();
        assert_eq!(id, pack.idx.oid_at(i), "object at offset {offset}");
        seen.lock().unwrap()[i as usize] += 1;
        Ok(())
    })
    .unwrap();
    assert!(seen.into_inner().unwrap().iter().all(|&c| c == 1));
}

/// read_at for every object agrees with git cat-file.
fn check_read_at(pack: &Pack, repo: &Path, budget: usize) {
    let ids: Vec<ObjectId> = (0..pack.idx.num_objects())
        .map(|i| pack.idx.oid_at(i))
        .collect();
    let oracle = cat_file_batch(repo, &ids);
    let mut cache = DeltaCache::new(budget);
    let mut out = Vec::new();
    for id in &ids {
        let offset = pack.find(id).unwrap();
        let kind = pack
            .read_at(offset, &mut cache, &no_external, &mut out)
            .unwrap();
        let (want_kind, want_body) = &oracle[id];
        assert_eq!(kind.as_str(), want_kind);
        assert_eq!(&out, want_body, "{id}");
    }
}

fn count_kinds(pack: &Pack) -> (usize, usize, usize) {
    let (mut base, mut ofs, mut refd) = (0, 0, 0);
    for i in 0..pack.idx.num_objects() {
        match pack.data.entry_at(pack.idx.offset_at(i)).unwrap().kind {
            EntryKind::Base(_) => base += 1,
            EntryKind::OfsDelta { .. } => ofs += 1,
            EntryKind::RefDelta { .. } => refd += 1,
        }
    }
    (base, ofs, refd)
}

#[test]
fn ofs_delta_pack_traverse_and_random_access() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    let idx_path = repacked_history(repo);
    let pack = Pack::open(&idx_path, HashKind::Sha1).unwrap();
    pack.idx.verify_checksum().unwrap();
    pack.data.verify_checksum().unwrap();
    assert_eq!(pack.idx.version(), 2);
    let (_, ofs, refd) = count_kinds(&pack);
    assert!(ofs > 20, "expected OFS_DELTA entries, got {ofs}");
    assert_eq!(refd, 0);
    check_traverse(&pack);
    check_read_at(&pack, repo, 1 << 20);
    check_read_at(&pack, repo, 0); // no cache at all
    // CRCs match the raw entry bytes; compressed ranges end where the next entry starts.
    let mut offsets: Vec<(u64, u32)> = (0..pack.idx.num_objects())
        .map(|i| (pack.idx.offset_at(i), i))
        .collect();
    offsets.sort();
    for w in offsets.windows(2) {
        let entry = pack.data.entry_at(w[0].0).unwrap();
        let range = pack.data.compressed_range(&entry).unwrap();
        assert_eq!(range.end, w[1].0);
        let raw = pack.data.raw(entry.offset..range.end).unwrap();
        assert_eq!(Some(crc32fast::hash(raw)), pack.idx.crc32_at(w[0].1));
    }
    // Lookups of absent ids fail cleanly.
    assert_eq!(pack.find(&HashKind::Sha1.null_id()), None);
    assert_eq!(pack.find(&HashKind::Sha256.empty_blob()), None);
}

#[test]
fn ref_delta_pack_and_idx_v1_and_large_offsets() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = history_repo(tmp.path());
    let objects = git_bytes(&repo, &["rev-list", "--objects", "--all"]);
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let prefix = out.join("refs");
    let name = git_with_input(
        &repo,
        &[
            "pack-objects",
            "-q",
            "--window=10",
            "--depth=50",
            prefix.to_str().unwrap(),
        ],
        &objects,
    );
    let hex = String::from_utf8(name).unwrap().trim().to_string();
    let idx_path = out.join(format!("refs-{hex}.idx"));
    let pack = Pack::open(&idx_path, HashKind::Sha1).unwrap();
    let (_, ofs, refd) = count_kinds(&pack);
    assert_eq!(ofs, 0);
    assert!(refd > 20, "expected REF_DELTA entries, got {refd}");
    check_traverse(&pack);
    check_read_at(&pack, &repo, 1 << 20);

    // The same pack indexed as v1, and as v2 with every offset in the 64-bit table.
    let pack_path = out.join(format!("refs-{hex}.pack"));
    for (dir, version) in [("v1", "1"), ("v2large", "2,0x10")] {
        let d = tmp.path().join(dir);
        std::fs::create_dir(&d).unwrap();
        let copy = d.join("p.pack");
        std::fs::copy(&pack_path, &copy).unwrap();
        git_bytes(
            &d,
            &[
                "index-pack",
                &format!("--index-version={version}"),
                "p.pack",
            ],
        );
        let other = Pack::open(&d.join("p.idx"), HashKind::Sha1).unwrap();
        other.idx.verify_checksum().unwrap();
        assert_eq!(other.idx.version(), if version == "1" { 1 } else { 2 });
        for i in 0..pack.idx.num_objects() {
            assert_eq!(other.idx.oid_at(i), pack.idx.oid_at(i));
            assert_eq!(other.idx.offset_at(i), pack.idx.offset_at(i));
            assert_eq!(other.idx.lookup(&pack.idx.oid_at(i)), Some(i));
            let crc = other.idx.crc32_at(i);
            assert_eq!(
                crc,
                if version == "1" {
                    None
                } else {
                    pack.idx.crc32_at(i)
                }
            );
        }
        check_traverse(&other);
    }
}

/// Writes a v2 index for `pack_path` (whose objects are all in `repo`, so
/// git can name them even when the pack is thin and git's index-pack would
/// refuse it).
fn write_idx_v2(pack_path: &Path, repo: &Path) -> PathBuf {
    let data = PackFile::open(pack_path, HashKind::Sha1).unwrap();
    // All object ids of the repository, with bodies, to resolve any delta.
    let all = all_object_ids(repo, HashKind::Sha1);
    let oracle = cat_file_batch(repo, &all);
    let mut by_offset: HashMap<u64, (ObjectKind, Vec<u8>)> = HashMap::new();
    let mut rows = Vec::new(); // (name, crc, offset)
    let mut offset = 12;
    for _ in 0..data.num_objects() {
        let entry = data.entry_at(offset).unwrap();
        let range = data.compressed_range(&entry).unwrap();
        let mut inflated = Vec::new();
        data.inflate(&entry, &mut inflated).unwrap();
        let (kind, body) = match entry.kind {
            EntryKind::Base(kind) => (kind, inflated),
            EntryKind::OfsDelta { base_offset } => {
                let (kind, base) = &by_offset[&base_offset];
                let mut out = Vec::new();
                apply_delta(base, &inflated, &mut out).unwrap();
                (*kind, out)
            }
            EntryKind::RefDelta { base_id } => {
                let (kind, base) = &oracle[&base_id];
                let mut out = Vec::new();
                apply_delta(base, &inflated, &mut out).unwrap();
                (ObjectKind::from_name(kind.as_bytes()).unwrap(), out)
            }
        };
        let id = sha1_object_id(kind, &body).unwrap();
        let crc = crc32fast::hash(data.raw(offset..range.end).unwrap());
        let name: [u8; 20] = id.as_bytes().try_into().expect("a SHA-1 name");
        rows.push((name, crc, offset));
        by_offset.insert(offset, (kind, body));
        offset = range.end;
    }
    let trailer = &std::fs::read(pack_path).unwrap()[data.data_end()..];
    let idx = idx_v2_bytes(rows, trailer);
    let path = pack_path.with_extension("idx");
    std::fs::write(&path, idx).unwrap();
    path
}

#[test]
fn thin_pack_uses_external_bases() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = history_repo(tmp.path());
    let thin = git_with_input(
        &repo,
        &["pack-objects", "--thin", "--revs", "--stdout", "-q"],
        b"HEAD\n^HEAD~3\n",
    );
    let pack_path = tmp.path().join("thin.pack");
    std::fs::write(&pack_path, thin).unwrap();
    let idx_path = write_idx_v2(&pack_path, &repo);
    let pack = Pack::open(&idx_path, HashKind::Sha1).unwrap();
    pack.idx.verify_checksum().unwrap();
    let outside: Vec<ObjectId> = (0..pack.idx.num_objects())
        .filter_map(
            |i| match pack.data.entry_at(pack.idx.offset_at(i)).unwrap().kind {
                EntryKind::RefDelta { base_id } if pack.find(&base_id).is_none() => Some(base_id),
                _ => None,
            },
        )
        .collect();
    assert!(!outside.is_empty(), "the thin pack has no external bases");

    // Without the bases: MissingBase naming one of them.
    let err = pack
        .traverse::<PackError>(&no_external, &|_, _, _, _| Ok(()))
        .unwrap_err();
    assert!(
        matches!(&err, PackError::MissingBase { base, .. } if outside.contains(base)),
        "{err}"
    );
    let oracle = cat_file_batch(&repo, &outside);
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let external = |id: &ObjectId| {
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        oracle
            .get(id)
            .map(|(k, b)| (ObjectKind::from_name(k.as_bytes()).unwrap(), b.clone()))
    };
    let n = pack.idx.num_objects() as usize;
    let seen = Mutex::new(vec![0u32; n]);
    pack.traverse::<PackError>(&external, &|i, _, kind, body| {
        assert_eq!(sha1_object_id(kind, body).unwrap(), pack.idx.oid_at(i));
        seen.lock().unwrap()[i as usize] += 1;
        Ok(())
    })
    .unwrap();
    assert!(seen.into_inner().unwrap().iter().all(|&c| c == 1));
    let mut unique = outside.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        calls.load(std::sync::atomic::Ordering::Relaxed),
        unique.len(),
        "each external base fetched once"
    );

    let mut cache = DeltaCache::new(1 << 20);
    let mut out = Vec::new();
    for i in 0..pack.idx.num_objects() {
        let kind = pack
            .read_at(pack.idx.offset_at(i), &mut cache, &external, &mut out)
            .unwrap();
        assert_eq!(sha1_object_id(kind, &out).unwrap(), pack.idx.oid_at(i));
    }
}

#[test]
fn corrupt_packs_fail_with_errors_not_panics() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    let idx_path = repacked_history(repo);
    let pack_path = idx_path.with_extension("pack");
    let original = std::fs::read(&pack_path).unwrap();
    let bad_dir = tmp.path().join("bad");
    std::fs::create_dir(&bad_dir).unwrap();
    let bad_idx = bad_dir.join("p.idx");
    std::fs::copy(&idx_path, &bad_idx).unwrap();
    // Flip bytes throughout the object data: every outcome is Ok or an error.
    let step = (original.len() / 97).max(1);
    let mut failures = 0;
    for at in (12..original.len() - 20).step_by(step) {
        let mut bytes = original.clone();
        bytes[at] ^= 0x5a;
        std::fs::write(bad_dir.join("p.pack"), &bytes).unwrap();
        let pack = Pack::open(&bad_idx, HashKind::Sha1).unwrap();
        assert!(pack.data.verify_checksum().is_err());
        if pack
            .traverse::<PackError>(&no_external, &|_, _, _, _| Ok(()))
            .is_err()
        {
            failures += 1;
        }
        let mut cache = DeltaCache::new(1 << 16);
        for i in 0..pack.idx.num_objects() {
            let _ = pack.read_at(
                pack.idx.offset_at(i),
                &mut cache,
                &no_external,
                &mut Vec::new(),
            );
        }
    }
    assert!(failures > 0);
    // Truncated pack and bad magic.
    std::fs::write(bad_dir.join("p.pack"), &original[..original.len() / 2]).unwrap();
    assert!(matches!(
        Pack::open(&bad_idx, HashKind::Sha1),
        Err(PackError::IdxPackMismatch { .. })
    ));
    let data = PackFile::open(&bad_dir.join("p.pack"), HashKind::Sha1).unwrap();
    let idx = IndexFile::open(&bad_idx, HashKind::Sha1).unwrap();
    let mut truncated = 0;
    for i in 0..idx.num_objects() {
        if let Ok(e) = data.entry_at(idx.offset_at(i))
            && data.inflate(&e, &mut Vec::new()).is_err()
        {
            truncated += 1;
        }
    }
    assert!(truncated > 0);
    let mut bytes = original.clone();
    bytes[0] = b'X';
    std::fs::write(bad_dir.join("p.pack"), &bytes).unwrap();
    assert!(matches!(
        PackFile::open(&bad_dir.join("p.pack"), HashKind::Sha1),
        Err(PackError::BadMagic { .. })
    ));
    // Index: bad version, truncated, non-monotonic fanout, corrupt checksum.
    let idx_bytes = std::fs::read(&idx_path).unwrap();
    let mut v = idx_bytes.clone();
    v[7] = 3;
    std::fs::write(&bad_idx, &v).unwrap();
    assert!(IndexFile::open(&bad_idx, HashKind::Sha1).is_err());
    std::fs::write(&bad_idx, &idx_bytes[..idx_bytes.len() - 1]).unwrap();
    assert!(IndexFile::open(&bad_idx, HashKind::Sha1).is_err());
    let mut v = idx_bytes.clone();
    v[8 + 4 * 200..8 + 4 * 201].copy_from_slice(&[0xff; 4]);
    std::fs::write(&bad_idx, &v).unwrap();
    assert!(IndexFile::open(&bad_idx, HashKind::Sha1).is_err());
    let mut v = idx_bytes.clone();
    let last = v.len() - 1;
    v[last] ^= 1;
    std::fs::write(&bad_idx, &v).unwrap();
    let idx = IndexFile::open(&bad_idx, HashKind::Sha1).unwrap();
    assert!(idx.verify_checksum().is_err());
    assert!(IndexFile::open(&bad_idx, HashKind::Sha256).is_err());
}
