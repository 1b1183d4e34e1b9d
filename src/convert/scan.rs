//! The scan: decode every source object once, verify its SHA-1 name with
//! collision detection, name blobs in SHA-256 right away (their bytes do not
//! change), and record what each tree, commit and tag references so the map
//! pass can translate them in dependency order.
//!
//! Objects an earlier run converted (they have map rows) are not decoded
//! at all when few of a pack's objects are new: the new ones are read one
//! by one. A pack with many new objects is traversed whole (each base
//! inflated once), recording only the new ones.

use std::cell::RefCell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::ConvertError;
use super::inventory::Inventory;
use super::progress::Progress;
use super::resume_hooks::Checkpoints;
use super::table::{Location, ObjectTable, well_known_pair};
use crate::hash::{HashKind, ObjectId, sha1_object_id, sha256_object_id};
use crate::loose;
use crate::object::{ObjectKind, ReferenceRole, for_each_reference, tree_entries};
use crate::pack::DeltaCache;
use crate::translate::{TranslateOptions, translate_commit};

/// A reference to an object the source does not have.
#[derive(Debug, Clone)]
pub struct MissingReference {
    pub holder: ObjectId,
    pub holder_kind: ObjectKind,
    pub missing: ObjectId,
    pub role: ReferenceRole,
}

/// A gitlink (submodule commit) with no SHA-256 name available.
#[derive(Debug, Clone)]
pub struct UnmappedGitlink {
    pub tree: u32,
    pub name: Vec<u8>,
    pub target: ObjectId,
}

/// What the scan learned, besides what it stored in the table.
#[derive(Debug, Default)]
pub struct ScanOutcome {
    /// (dependent, dependency) pairs between table entries; dependencies
    /// that turn out to be blobs are dropped by the scheduler.
    pub edges: Vec<(u32, u32)>,
    pub missing: Vec<MissingReference>,
    pub gitlinks: Vec<UnmappedGitlink>,
    pub bytes_inflated: u64,
    /// Objects decoded and recorded: those without a map row.
    pub objects_scanned: u64,
}

thread_local! {
    static CACHE: RefCell<DeltaCache> =
        RefCell::new(DeltaCache::new(super::map_pass::CACHE_BYTES_PER_THREAD));
}

/// A pack is traversed whole when at least 1/TRAVERSE_FRACTION of its
/// objects are new; otherwise its new objects are read one by one.
const TRAVERSE_FRACTION: usize = 4;

/// An object's table index, kind, and SHA-256 name when it is a blob.
type Named = (u32, ObjectKind, Option<[u8; 32]>);

#[derive(Default)]
struct Sink {
    named: Mutex<Vec<Named>>,
    edges: Mutex<Vec<(u32, u32)>>,
    missing: Mutex<Vec<MissingReference>>,
    gitlinks: Mutex<Vec<UnmappedGitlink>>,
    bytes: AtomicU64,
    scanned: AtomicU64,
}

/// Scans every pack and loose object without a map row into `table`.
pub fn scan(
    inventory: &Inventory,
    table: &mut ObjectTable,
    opts: TranslateOptions,
    hooks: &Checkpoints,
    progress: &dyn Progress,
) -> Result<ScanOutcome, ConvertError> {
    // New objects per pack (the last slot counts loose ones).
    let mut new_in = vec![Vec::new(); inventory.packs.len() + 1];
    for i in table.indices().filter(|&i| !table.is_mapped(i)) {
        match table.location(i) {
            Location::Packed { pack, .. } => new_in[pack as usize].push(i),
            Location::Loose => new_in[inventory.packs.len()].push(i),
        }
    }
    let total_new: usize = new_in.iter().map(Vec::len).sum();
    progress.start("hashing objects", Some(total_new as u64));
    let sink = Sink::default();
    {
        let table_ref: &ObjectTable = table;
        for (pack_no, pack) in inventory.packs.iter().enumerate() {
            let pack_path = pack.data.path();
            let new = &mut new_in[pack_no];
            if new.is_empty() {
                continue;
            }
            if new.len() * TRAVERSE_FRACTION < pack.idx.num_objects() as usize {
                new.sort_unstable_by_key(|&i| table_ref.location(i).offset());
                new.par_iter()
                    .try_for_each(|&at| -> Result<(), ConvertError> {
                        if hooks.interrupted() {
                            return Err(ConvertError::Interrupted);
                        }
                        let mut body = Vec::new();
                        let kind = CACHE.with_borrow_mut(|cache| {
                            inventory.read(table_ref, at, cache, &mut body)
                        })?;
                        let id = table_ref.sha1(at);
                        check_name(&id, kind, &body, || pack_path.display().to_string())?;
                        record(table_ref, &sink, at, kind, &body, opts)?;
                        progress.advance(1);
                        Ok(())
                    })?;
                continue;
            }
            let external = |id: &ObjectId| inventory.read_external(table_ref, id);
            let visit = |index: u32,
                         offset: u64,
                         kind: ObjectKind,
                         body: &[u8]|
             -> Result<(), ConvertError> {
                let expected = pack.idx.oid_at(index);
                let at = table_ref
                    .find_id(&expected)
                    .expect("every idx entry is in the table");
                // The same object stored twice is processed at its first location only.
                if table_ref.location(at)
                    != (Location::Packed {
                        pack: pack_no as u32,
                        offset,
                    })
                {
                    return Ok(());
                }
                if table_ref.is_mapped(at) {
                    return Ok(());
                }
                if hooks.interrupted() {
                    return Err(ConvertError::Interrupted);
                }
                check_name(&expected, kind, body, || pack_path.display().to_string())?;
                record(table_ref, &sink, at, kind, body, opts)?;
                progress.advance(1);
                Ok(())
            };
            pack.traverse(&external, &visit)?;
        }
        new_in[inventory.packs.len()].par_iter().try_for_each(
            |&at| -> Result<(), ConvertError> {
                if hooks.interrupted() {
                    return Err(ConvertError::Interrupted);
                }
                let id = table_ref.sha1(at);
                let (kind, body) = loose::read_loose(&inventory.objects_dir, &id)?;
                check_name(&id, kind, &body, || {
                    loose::loose_path(&inventory.objects_dir, &id)
                        .display()
                        .to_string()
                })?;
                record(table_ref, &sink, at, kind, &body, opts)?;
                progress.advance(1);
                Ok(())
            },
        )?;
    }
    for (at, kind, sha256) in sink
        .named
        .into_inner()
        .expect("no panics while holding the lock")
    {
        table.set_kind(at, kind);
        if let Some(id) = sha256 {
            table.set_sha256(at, id);
        }
    }
    if let Some(at) = table.indices().find(|&i| table.kind(i).is_none()) {
        // Every idx entry must have been reached by the traversal.
        return Err(ConvertError::NotDecoded { id: table.sha1(at) });
    }
    progress.finish();
    Ok(ScanOutcome {
        edges: sink
            .edges
            .into_inner()
            .expect("no panics while holding the lock"),
        missing: sink
            .missing
            .into_inner()
            .expect("no panics while holding the lock"),
        gitlinks: sink
            .gitlinks
            .into_inner()
            .expect("no panics while holding the lock"),
        bytes_inflated: sink.bytes.into_inner(),
        objects_scanned: sink.scanned.into_inner(),
    })
}

/// Checks that `body` hashes to `expected`, with collision detection.
fn check_name(
    expected: &ObjectId,
    kind: ObjectKind,
    body: &[u8],
    file: impl Fn() -> String,
) -> Result<(), ConvertError> {
    let actual = sha1_object_id(kind, body).map_err(|c| ConvertError::Collision {
        id: *expected,
        file: file(),
        detail: c.to_string(),
    })?;
    if actual != *expected {
        return Err(ConvertError::HashMismatch {
            expected: *expected,
            actual,
            file: file(),
        });
    }
    Ok(())
}

fn record(
    table: &ObjectTable,
    sink: &Sink,
    at: u32,
    kind: ObjectKind,
    body: &[u8],
    opts: TranslateOptions,
) -> Result<(), ConvertError> {
    sink.bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
    sink.scanned.fetch_add(1, Ordering::Relaxed);
    let sha256 = (kind == ObjectKind::Blob).then(|| match sha256_object_id(kind, body) {
        ObjectId::Sha256(raw) => raw,
        ObjectId::Sha1(_) => unreachable!("sha256_object_id returns SHA-256 ids"),
    });
    sink.named
        .lock()
        .expect("no panics while holding the lock")
        .push((at, kind, sha256));
    if kind == ObjectKind::Blob {
        return Ok(());
    }
    let holder = table.sha1(at);
    if opts.strict_headers && kind == ObjectKind::Commit {
        refuse_unknown_headers(holder, body, opts)?;
    }
    let bad = |e| ConvertError::Malformed {
        id: holder,
        kind,
        reason: format!("{e}"),
    };
    let mut edges = Vec::new();
    let mut missing = Vec::new();
    let mut gitlinks = Vec::new();
    let mut note = |id: ObjectId, role: ReferenceRole, name: Option<&[u8]>| match table.find_id(&id)
    {
        Some(dep) => edges.push((at, dep)),
        None if well_known_pair(&id).is_some() => {}
        None if matches!(role, ReferenceRole::TreeEntry { gitlink: true }) => {
            gitlinks.push(UnmappedGitlink {
                tree: at,
                name: name.unwrap_or_default().to_vec(),
                target: id,
            })
        }
        None => missing.push(MissingReference {
            holder,
            holder_kind: kind,
            missing: id,
            role,
        }),
    };
    if kind == ObjectKind::Tree {
        for entry in tree_entries(body, HashKind::Sha1) {
            let entry = entry.map_err(bad)?;
            let gitlink = is_gitlink_mode(entry.mode);
            let role = ReferenceRole::TreeEntry { gitlink };
            // Regular-file and symlink modes name blobs: no ordering edge needed.
            let name = entry.name;
            if is_blob_mode(entry.mode) && table.find_id(&entry.id).is_some() {
                continue;
            }
            note(entry.id, role, Some(name));
        }
    } else {
        for_each_reference(kind, body, HashKind::Sha1, |id, role| note(id, role, None))
            .map_err(bad)?;
    }
    if !edges.is_empty() {
        sink.edges
            .lock()
            .expect("no panics while holding the lock")
            .extend(edges);
    }
    if !missing.is_empty() {
        sink.missing
            .lock()
            .expect("no panics while holding the lock")
            .extend(missing);
    }
    if !gitlinks.is_empty() {
        sink.gitlinks
            .lock()
            .expect("no panics while holding the lock")
            .extend(gitlinks);
    }
    Ok(())
}

/// File modes that name blobs: regular files (any permission bits, as git
/// accepts odd ones like 100664) and symlinks.
fn is_blob_mode(mode: &[u8]) -> bool {
    let value = parse_octal(mode);
    matches!(value.map(|m| m & 0o170000), Some(0o100000) | Some(0o120000))
}

fn is_gitlink_mode(mode: &[u8]) -> bool {
    parse_octal(mode).map(|m| m & 0o170000) == Some(0o160000)
}

fn parse_octal(mode: &[u8]) -> Option<u32> {
    mode.iter().try_fold(0u32, |acc, &d| {
        (b'0'..=b'7')
            .contains(&d)
            .then(|| acc.wrapping_mul(8) + u32::from(d - b'0'))
    })
}

/// Under `--strict-headers`, a commit with a header field git does not know
/// is refused during the scan, before anything is written. The check runs
/// the real commit translator with an identity map, so it refuses exactly
/// what the map pass would.
fn refuse_unknown_headers(
    id: ObjectId,
    body: &[u8],
    opts: TranslateOptions,
) -> Result<(), ConvertError> {
    let identity = |id: &ObjectId| Some(*id);
    let mut scratch = Vec::new();
    translate_commit(
        body,
        HashKind::Sha1,
        HashKind::Sha1,
        &identity,
        opts,
        &mut scratch,
    )
    .map(|_| ())
    .map_err(|source| ConvertError::Translate {
        id,
        kind: ObjectKind::Commit,
        source,
    })
}
