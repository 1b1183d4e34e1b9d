//! `git-rehash verify`: an independent check of a finished conversion.
//!
//! It re-reads DEST from its files, not from anything the converter kept:
//! - every object of every pack (and any loose object) is decoded and its
//!   name recomputed in DEST's hash (SHA-256, or SHA-1 for a conversion
//!   from SHA-256: the direction the map records);
//! - the map database is read into memory on its own ([`MapIndex`]), and
//!   each tree, commit and tag is translated *back* to SOURCE's hash
//!   through it (the inverse of the conversion); the name of the result
//!   must be the one the map pairs it with, and the map row must have the
//!   object's type;
//! - every map row must have its object in DEST, and no name may appear in
//!   two rows;
//! - every ref, peeled value and reflog entry of DEST must name an object of
//!   DEST; with `--source`, SOURCE's refs must all be in DEST, translated,
//!   and SOURCE's objects must all have map rows; with a ref selection
//!   recorded in the map, only the refs it keeps, and SOURCE's objects
//!   without a row are counted as left out (the refs, checked, and the map,
//!   closed under references by the checks above, say that what those
//!   refs reach is there);
//! - a DEST converted with `--shared-with` borrows the pool's objects
//!   (`shared.rs`): its alternates file, the pool's map and the pool's
//!   objects are checked, and the pool's rows serve the lookups above.
//!
//! Shared with the converter: the pack and loose readers and the byte-level
//! translators (run in the other direction). Objects for which the inverse
//! is not exact (docs/translation.md, "Round trips") are checked forward against SOURCE
//! when it is given, and listed as unchecked otherwise.

mod error;
mod map_index;
mod objects_check;
mod problem;
mod refs_check;
mod shared;
mod source;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

pub use error::VerifyError;
pub use map_index::{Created, GitlinkPair, MapIndex, Row};
pub use problem::Problem;

use crate::hash::{HashKind, ObjectId};
use crate::object::{ObjectKind, peel_tags};
use crate::progress::Progress;
use crate::refs::read_source_refs;
use crate::repo::{SourceRepo, dest_layout};

/// What to verify.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// The converted repository.
    pub dest: PathBuf,
    /// The repository DEST was converted from, for the ref and forward
    /// checks.
    pub source: Option<PathBuf>,
    /// The map database (default: `DEST/rehash/map.sqlite`).
    pub map: Option<PathBuf>,
    /// Worker threads; `None` = all cores.
    pub jobs: Option<usize>,
}

impl VerifyOptions {
    pub fn new(dest: impl Into<PathBuf>) -> Self {
        VerifyOptions {
            dest: dest.into(),
            source: None,
            map: None,
            jobs: None,
        }
    }
}

/// The verdict.
#[derive(Debug, Clone)]
pub struct VerifyReport {
    /// Objects checked, by kind: commit, tree, blob, tag.
    pub objects: [(ObjectKind, u64); 4],
    pub bytes: u64,
    pub map_rows: u64,
    /// Rows of the pools' maps DEST shares objects with (`--shared-with`).
    pub shared_rows: u64,
    pub refs_checked: u64,
    pub source_objects_checked: u64,
    /// Of those, objects without a map row that the conversion's ref
    /// selection left out (no selected ref reaches them).
    pub source_objects_left_out: u64,
    /// Problems found (at most 10 000 are kept; `problem_count` counts all).
    pub problems: Vec<Problem>,
    pub problem_count: u64,
    /// Objects whose inverse translation is not exact: `true` when SOURCE
    /// confirmed them, `false` when they could not be checked (no SOURCE).
    pub irreversible: Vec<(ObjectId, bool)>,
    /// Gitlink targets that carry a surrogate name
    /// (`--unmapped-gitlinks=placeholder`): lossy, but not a mismatch.
    pub surrogate_gitlinks: u64,
    /// Commits the map records as translated with a verbatim mergetag
    /// (`--unmapped-mergetags=verbatim`): exact, checked like any commit.
    pub verbatim_mergetags: u64,
    /// Objects the conversion created with no SHA-1 counterpart
    /// (`--rekey-notes`), checked by name and type only.
    pub created_objects: u64,
    pub elapsed: Duration,
}

impl VerifyReport {
    pub fn is_clean(&self) -> bool {
        self.problem_count == 0
    }

    pub fn objects_checked(&self) -> u64 {
        self.objects.iter().map(|(_, n)| n).sum()
    }
}

/// Verifies the conversion at `opts.dest`.
pub fn verify(opts: &VerifyOptions, progress: &dyn Progress) -> Result<VerifyReport, VerifyError> {
    let pool = crate::worker_pool::worker_pool(opts.jobs, "rehash-verify")
        .map_err(|e| VerifyError::io(&opts.dest, e))?;
    pool.install(|| verify_in_pool(opts, progress))
}

fn verify_in_pool(
    opts: &VerifyOptions,
    progress: &dyn Progress,
) -> Result<VerifyReport, VerifyError> {
    let started = Instant::now();
    let dest = &opts.dest;
    let map_file = opts
        .map
        .clone()
        .unwrap_or_else(|| dest_layout::map_db(dest));
    if !map_file.is_file() {
        return Err(VerifyError::NotAConversion {
            path: dest.clone(),
            reason: format!("no map database at {}", map_file.display()),
        });
    }
    progress.start("reading map", None);
    let mut index = MapIndex::load(&map_file)?;
    let selection = crate::idmap::IdMap::open_read_only(&map_file)?.ref_selection()?;
    let (gitlink_pairs, surrogate_gitlinks) = read_gitlink_pairs(dest)?;
    index.set_gitlinks(gitlink_pairs);
    progress.finish();
    let sink = objects_check::Sink::default();
    progress.start("checking the shared pool", None);
    let shared = shared::check_share(dest, &map_file, &index, &sink)?;
    let shared_rows = shared.as_ref().map_or(0, |s| s.len() as u64);
    if let Some(shared) = shared {
        index.set_shared(shared);
    }
    progress.finish();

    let direction = index.direction();
    let source = opts
        .source
        .as_deref()
        .map(|path| -> Result<_, VerifyError> {
            let repo = SourceRepo::open(path)?;
            if repo.object_format != direction.source() {
                return Err(VerifyError::NotAConversion {
                    path: path.to_path_buf(),
                    reason: format!(
                        "SOURCE uses object format {}; DEST was converted from {}",
                        repo.object_format,
                        direction.source()
                    ),
                });
            }
            source::SourceObjects::open(&repo)
        })
        .transpose()?;

    for id in index.duplicates() {
        sink.report(Problem::DuplicateRow { id });
    }
    progress.start("verifying objects", Some(index.len() as u64));
    objects_check::Checker {
        index: &index,
        source: source.as_ref(),
        sink: &sink,
        progress,
    }
    .check_repository(&dest.join("objects"))?;
    progress.finish();
    for row in index.unseen() {
        sink.report(Problem::MissingObject {
            sha1: ObjectId::Sha1(row.sha1),
            sha256: ObjectId::Sha256(row.sha256),
            kind: row.kind,
        });
    }

    for created in index.unseen_created() {
        sink.report(Problem::MissingCreated {
            name: created.name,
            kind: created.kind,
        });
    }

    progress.start("verifying refs", None);
    let dest_refs = read_source_refs(dest, direction.dest())?;
    let mut refs_checked = refs_check::check_dest_refs(&dest_refs, &index, &sink);
    let mut source_objects_checked = 0;
    let mut source_objects_left_out = 0;
    if let Some(source) = &source {
        let source_refs = read_source_refs(&source.git_dir, direction.source())?;
        let source_refs = match &selection {
            Some(selection) => source_refs.selected(selection),
            None => source_refs,
        };
        let peel = |id: &ObjectId| peel_tags(id, |object| source.read(object));
        // SOURCE's refs as a conversion carries them (`refs/rehash/`).
        let source_refs = source_refs.as_converted();
        refs_checked +=
            refs_check::compare_with_source(&source_refs, &dest_refs, &index, &peel, &sink);
        let ids = source.ids();
        source_objects_checked = ids.len() as u64;
        let unmapped = ids.par_iter().filter(|id| !index.contains(id));
        match selection {
            Some(_) => source_objects_left_out = unmapped.count() as u64,
            None => unmapped.for_each(|id| sink.report(Problem::SourceObjectUnmapped { id: *id })),
        }
    }
    progress.finish();

    let objects_check::Collected {
        problems,
        problem_count,
        checked,
        bytes,
        irreversible,
    } = sink.into_parts();
    Ok(VerifyReport {
        objects: [
            (ObjectKind::Commit, checked[0]),
            (ObjectKind::Tree, checked[1]),
            (ObjectKind::Blob, checked[2]),
            (ObjectKind::Tag, checked[3]),
        ],
        bytes,
        map_rows: index.len() as u64,
        shared_rows,
        refs_checked,
        source_objects_checked,
        source_objects_left_out,
        problems,
        problem_count,
        irreversible,
        surrogate_gitlinks,
        verbatim_mergetags: index.verbatim_mergetag_count() as u64,
        created_objects: index.created_len() as u64,
        elapsed: started.elapsed(),
    })
}

/// Gitlink pairs recorded next to the map (`rehash/gitlinks.txt`, written
/// when submodule maps or surrogates were used): `<sha1> <sha256> <origin>`
/// lines. Also returns how many are surrogates.
fn read_gitlink_pairs(dest: &Path) -> Result<(Vec<GitlinkPair>, u64), VerifyError> {
    let path = dest_layout::gitlinks(dest);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(VerifyError::io(&path, e)),
    };
    let mut pairs = Vec::new();
    let mut surrogates = 0;
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split_ascii_whitespace();
        let parsed = fields
            .next()
            .and_then(|h| ObjectId::from_hex(HashKind::Sha1, h.as_bytes()))
            .zip(
                fields
                    .next()
                    .and_then(|h| ObjectId::from_hex(HashKind::Sha256, h.as_bytes())),
            );
        // Either side may be the stand-in: `convert`'s surrogates name
        // SHA-1 gitlinks in SHA-256, `export-sha1`'s the other way.
        if matches!(fields.next(), Some("surrogate" | "sha1-surrogate")) {
            surrogates += 1;
        }
        match parsed {
            Some((ObjectId::Sha1(s1), ObjectId::Sha256(s256))) => pairs.push((s256, s1)),
            _ => {
                return Err(VerifyError::Damaged {
                    path: path.clone(),
                    reason: format!("line {} is not '<sha1> <sha256> ...'", n + 1),
                });
            }
        }
    }
    Ok((pairs, surrogates))
}
