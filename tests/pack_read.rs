//! Pack and loose object reading against packs and objects written by the
//! real git, with `git cat-file --batch` as the oracle.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use git_rehash::hash::{HashKind, ObjectId};
use git_rehash::loose::{list_loose, loose_path, read_loose};
use git_rehash::object::ObjectKind;
use git_rehash::object::sha1_object_id;
use git_rehash::pack::{DeltaCache, EntryKind, IndexFile, Pack, PackError, PackFile};

fn git_cmd(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "A U Thor")
        .env("GIT_AUTHOR_EMAIL", "author@example.com")
        .env("GIT_AUTHOR_DATE", "1700000000 +0000")
        .env("GIT_COMMITTER_NAME", "C O Mitter")
        .env("GIT_COMMITTER_EMAIL", "committer@example.com")
        .env("GIT_COMMITTER_DATE", "1700000000 +0000");
    c
}

fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    git_with_input(dir, args, b"")
}

fn git_with_input(dir: &Path, args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = git_cmd(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git runs");
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("git finishes");
    writer
        .join()
        .expect("writer thread")
        .expect("stdin written");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A repository with history worth deltifying: growing and edited files in
/// nested trees, a binary-ish file, a tag.
fn make_repo(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(dir.join("src/deep")).unwrap();
    let mut text = String::new();
    for commit in 0..24 {
        for line in 0..40 {
            text.push_str(&format!(
                "commit {commit} line {line}: some words to compress\n"
            ));
        }
        text = text.replace(&format!("commit {} line 3", commit / 2), "edited");
        std::fs::write(dir.join("a.txt"), &text).unwrap();
        std::fs::write(dir.join("src/deep/b.txt"), text.repeat(2)).unwrap();
        let bin: Vec<u8> = (0..5000u32)
            .map(|i| ((i * 7 + commit) % 256) as u8)
            .collect();
        std::fs::write(dir.join("src/bin.dat"), bin).unwrap();
        std::fs::write(
            dir.join(format!("src/f{}.txt", commit % 5)),
            format!("{commit}\n"),
        )
        .unwrap();
        git(dir, &["add", "-A"]);
        git(
            dir,
            &["commit", "-q", "-m", &format!("commit {commit}\n\nbody")],
        );
    }
    git(dir, &["tag", "-a", "-m", "a tag", "v1"]);
}

fn packs_in(objects: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(objects.join("pack"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "idx"))
        .collect();
    v.sort();
    v
}

/// `git cat-file --batch` for every id: kind and body.
fn cat_file_all(dir: &Path, ids: &[ObjectId]) -> HashMap<ObjectId, (String, Vec<u8>)> {
    let mut input = Vec::new();
    for id in ids {
        id.write_hex(&mut input);
        input.push(b'\n');
    }
    let out = git_with_input(dir, &["cat-file", "--batch"], &input);
    let mut map = HashMap::new();
    let mut rest = &out[..];
    for id in ids {
        let nl = rest.iter().position(|&b| b == b'\n').unwrap();
        let line = std::str::from_utf8(&rest[..nl]).unwrap();
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(fields[0], id.to_hex());
        let size: usize = fields[2].parse().unwrap();
        let body = rest[nl + 1..nl + 1 + size].to_vec();
        rest = &rest[nl + 1 + size + 1..];
        map.insert(*id, (fields[1].to_string(), body));
    }
    map
}

fn no_external(_: &ObjectId) -> Option<(ObjectKind, Vec<u8>)> {
    None
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
    let oracle = cat_file_all(repo, &ids);
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
    make_repo(repo);
    git(repo, &["repack", "-adf", "--window=10", "--depth=50"]);
    let idx_path = &packs_in(&repo.join(".git/objects"))[0];
    let pack = Pack::open(idx_path, HashKind::Sha1).unwrap();
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
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    make_repo(&repo);
    let objects = git(&repo, &["rev-list", "--objects", "--all"]);
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
        git(
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
    let all = git(
        repo,
        &[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname)",
        ],
    );
    let all: Vec<ObjectId> = all
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| ObjectId::from_hex(HashKind::Sha1, l).unwrap())
        .collect();
    let oracle = cat_file_all(repo, &all);
    let mut by_offset: HashMap<u64, (ObjectKind, Vec<u8>)> = HashMap::new();
    let mut rows = Vec::new(); // (id, crc, offset)
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
                git_rehash::pack::apply_delta(base, &inflated, &mut out).unwrap();
                (*kind, out)
            }
            EntryKind::RefDelta { base_id } => {
                let (kind, base) = &oracle[&base_id];
                let mut out = Vec::new();
                git_rehash::pack::apply_delta(base, &inflated, &mut out).unwrap();
                (ObjectKind::from_name(kind.as_bytes()).unwrap(), out)
            }
        };
        let id = sha1_object_id(kind, &body).unwrap();
        let crc = crc32fast::hash(data.raw(offset..range.end).unwrap());
        rows.push((id, crc, offset));
        by_offset.insert(offset, (kind, body));
        offset = range.end;
    }
    rows.sort();
    let mut idx = vec![0xff, b't', b'O', b'c', 0, 0, 0, 2];
    for b in 0..256usize {
        let n = rows
            .iter()
            .filter(|r| usize::from(r.0.as_bytes()[0]) <= b)
            .count() as u32;
        idx.extend_from_slice(&n.to_be_bytes());
    }
    rows.iter()
        .for_each(|r| idx.extend_from_slice(r.0.as_bytes()));
    rows.iter()
        .for_each(|r| idx.extend_from_slice(&r.1.to_be_bytes()));
    rows.iter()
        .for_each(|r| idx.extend_from_slice(&(r.2 as u32).to_be_bytes()));
    idx.extend_from_slice(&std::fs::read(pack_path).unwrap()[data.data_end()..]);
    let sum = {
        use sha1::Digest as _;
        sha1::Sha1::digest(&idx)
    };
    idx.extend_from_slice(&sum);
    let path = pack_path.with_extension("idx");
    std::fs::write(&path, idx).unwrap();
    path
}

#[test]
fn thin_pack_uses_external_bases() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    make_repo(&repo);
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
    let oracle = cat_file_all(&repo, &outside);
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
    make_repo(repo);
    git(repo, &["repack", "-adf", "--window=10", "--depth=50"]);
    let idx_path = packs_in(&repo.join(".git/objects"))[0].clone();
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

#[test]
fn loose_objects_match_git() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    make_repo(repo);
    let objects = repo.join(".git/objects");
    std::fs::write(objects.join("tmp_obj_abcdef"), b"junk").unwrap();
    std::fs::create_dir_all(objects.join("ab")).unwrap();
    std::fs::write(objects.join("ab/tmp_obj_x"), b"junk").unwrap();
    let ids = list_loose(&objects, HashKind::Sha1).unwrap();
    let listed = git(
        repo,
        &[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname)",
        ],
    );
    let mut want: Vec<ObjectId> = listed
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| ObjectId::from_hex(HashKind::Sha1, l).unwrap())
        .collect();
    want.sort();
    assert_eq!(ids, want);
    let oracle = cat_file_all(repo, &ids);
    for id in &ids {
        assert!(loose_path(&objects, id).is_file());
        let (kind, body) = read_loose(&objects, id).unwrap();
        assert_eq!(kind.as_str(), oracle[id].0);
        assert_eq!(body, oracle[id].1);
        assert_eq!(sha1_object_id(kind, &body).unwrap(), *id);
    }
    // A missing object names its path.
    let missing = read_loose(&objects, &HashKind::Sha1.null_id()).unwrap_err();
    assert!(missing.to_string().contains("0000000000"), "{missing}");
}

/// Throughput probe, not a check: `PACK_BENCH_IDX=/path/pack-X.idx cargo
/// test --test pack_read -- --ignored --nocapture bench`.
#[test]
#[ignore]
fn bench_traverse_and_read_at() {
    let Some(idx) = std::env::var_os("PACK_BENCH_IDX") else {
        return;
    };
    let pack = Pack::open(Path::new(&idx), HashKind::Sha1).unwrap();
    let bytes = std::sync::atomic::AtomicU64::new(0);
    let start = std::time::Instant::now();
    pack.traverse::<PackError>(&no_external, &|_, _, _, body| {
        bytes.fetch_add(body.len() as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    })
    .unwrap();
    let t = start.elapsed();
    let total = bytes.into_inner();
    println!(
        "traverse: {} objects, {} MiB inflated in {:.2?} ({:.0} MiB/s, {} rayon threads)",
        pack.idx.num_objects(),
        total >> 20,
        t,
        total as f64 / 1048576.0 / t.as_secs_f64(),
        rayon::current_num_threads()
    );
    let start = std::time::Instant::now();
    pack.traverse::<PackError>(&no_external, &|i, _, kind, body| {
        assert_eq!(sha1_object_id(kind, body).unwrap(), pack.idx.oid_at(i));
        Ok(())
    })
    .unwrap();
    println!("traverse + sha1dc naming: {:.2?}", start.elapsed());
    let mut cache = DeltaCache::new(64 << 20);
    let mut out = Vec::new();
    let start = std::time::Instant::now();
    for i in 0..pack.idx.num_objects() {
        pack.read_at(pack.idx.offset_at(i), &mut cache, &no_external, &mut out)
            .unwrap();
    }
    println!(
        "read_at in name order, 64 MiB cache: {:.2?}",
        start.elapsed()
    );
}
