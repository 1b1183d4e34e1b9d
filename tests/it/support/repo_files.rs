//! What a repository holds, read with git or from its files: every
//! object, the packs and their entries, the loose objects.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use super::git::{git, git_bytes, git_with_input};
use super::library::{HashKind, ObjectId};

/// Every object of `repo`'s object database: sha1/sha256 hex -> type.
pub fn all_objects(repo: &Path) -> BTreeMap<String, String> {
    git(
        repo,
        &[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname) %(objecttype)",
        ],
    )
    .lines()
    .map(|l| {
        let (id, t) = l.split_once(' ').unwrap();
        (id.to_owned(), t.to_owned())
    })
    .collect()
}

/// One entry of a pack: object id, offset, and the type from the entry header
/// (1 commit, 2 tree, 3 blob, 4 tag, 6 OFS_DELTA, 7 REF_DELTA).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackEntry {
    pub id: String,
    pub offset: u64,
    pub kind: u8,
}

pub const OBJ_OFS_DELTA: u8 = 6;
pub const OBJ_REF_DELTA: u8 = 7;

/// Entries of `pack` (a `.pack` path; its `.idx` must sit beside it), read
/// with `git show-index` plus the type bits of each entry's first byte.
/// `object_format` is "sha1" or "sha256".
pub fn pack_entries(pack: &Path, object_format: &str) -> Vec<PackEntry> {
    let idx = fs::read(pack.with_extension("idx")).expect("read .idx");
    let fmt = format!("--object-format={object_format}");
    let here = pack.parent().unwrap();
    let listing = git_with_input(here, &["show-index", &fmt], &idx);
    let data = fs::read(pack).expect("read .pack");
    let mut entries: Vec<PackEntry> = String::from_utf8(listing)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let offset: u64 = f[0].parse().unwrap();
            PackEntry {
                id: f[1].to_owned(),
                offset,
                kind: (data[offset as usize] >> 4) & 7,
            }
        })
        .collect();
    entries.sort_by_key(|e| e.offset);
    entries
}

/// The `.pack` files of a repository (`git_dir` = `.git` or a bare repo).
pub fn pack_files(git_dir: &Path) -> Vec<PathBuf> {
    let mut packs: Vec<PathBuf> = fs::read_dir(git_dir.join("objects/pack"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension() == Some(OsStr::new("pack")))
        .collect();
    packs.sort();
    packs
}

/// One object as `git verify-pack -v` lists it: `<id> <type> <size>
/// <size-in-pack> <offset> [<depth> <base>]`.
#[derive(Clone, Debug)]
pub struct Listed {
    pub id: String,
    pub kind: String,
    /// The entry's inflated size: the object's, or its delta's.
    pub size: u64,
    /// The length of its delta chain: 0 for a whole object.
    pub depth: u32,
    pub base: Option<String>,
}

/// Every object `git verify-pack -v` lists in the packs of `git_dir`.
pub fn listed_objects(git_dir: &Path) -> Vec<Listed> {
    let mut out = Vec::new();
    for pack in pack_files(git_dir) {
        let idx = pack.with_extension("idx");
        let listing = git(
            git_dir,
            &["verify-pack", "-v", idx.to_str().expect("utf-8")],
        );
        for line in listing.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            // The summary lines after the objects start with words.
            if !matches!(f.len(), 5 | 7) || !matches!(f[0].len(), 40 | 64) {
                continue;
            }
            out.push(Listed {
                id: f[0].to_owned(),
                kind: f[1].to_owned(),
                size: f[2].parse().expect("a size"),
                depth: f.get(5).map_or(0, |d| d.parse().expect("a depth")),
                base: f.get(6).map(|b| (*b).to_owned()),
            });
        }
    }
    out
}

/// Ids of the loose objects of a repository (`objects/xx/yyyy...`).
pub fn loose_objects(git_dir: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    for dir in fs::read_dir(git_dir.join("objects"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = dir.file_name().to_string_lossy().into_owned();
        if name.len() != 2 || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        for file in fs::read_dir(dir.path()).into_iter().flatten().flatten() {
            ids.push(format!("{name}{}", file.file_name().to_string_lossy()));
        }
    }
    ids.sort();
    ids
}

/// The path of loose object `id` under `git_dir`.
pub fn loose_object_path(git_dir: &Path, id: &str) -> PathBuf {
    git_dir.join("objects").join(&id[..2]).join(&id[2..])
}

/// The names in `dir`, sorted.
pub fn dir_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read_dir {}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// `git cat-file --batch` in `dir` for every id: type name and body.
pub fn cat_file_batch(dir: &Path, ids: &[ObjectId]) -> HashMap<ObjectId, (String, Vec<u8>)> {
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

/// The ids of every object in `dir`'s object database (`git cat-file
/// --batch-all-objects`), in git's order.
pub fn all_object_ids(dir: &Path, kind: HashKind) -> Vec<ObjectId> {
    git_bytes(
        dir,
        &[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname)",
        ],
    )
    .split(|&b| b == b'\n')
    .filter(|l| !l.is_empty())
    .map(|l| ObjectId::from_hex(kind, l).unwrap())
    .collect()
}
