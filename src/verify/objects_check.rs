//! Checking every object DEST stores: its name in DEST's hash, its map
//! row, and the inverse translation (DEST's body -> SOURCE's body, through
//! the map read backwards), whose name in SOURCE's hash must be the one the
//! map records. DEST's hash is SHA-256 or, for a conversion from SHA-256,
//! SHA-1 (named with collision detection, as git names them).
//!
//! Packs are decoded in parallel over their delta trees
//! ([`Pack::traverse`]); if a pack cannot be traversed (a corrupt entry
//! stops the walk), every entry is read on its own so the damaged objects
//! are named and the others still checked.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::error::VerifyError;
use super::map_index::MapIndex;
use super::problem::Problem;
use super::source::SourceObjects;
use crate::hash::{Direction, ObjectId};
use crate::loose;
use crate::object::{ObjectKind, object_id};
use crate::pack::{DeltaCache, Pack, PackError, crc_mismatches, list_packs};
use crate::progress::Progress;
use crate::translate::{TranslateOptions, translate_object};

/// Problems kept in full; beyond that they are only counted.
const MAX_KEPT: usize = 10_000;

/// Collects problems and counts from many threads.
#[derive(Default)]
pub struct Sink {
    problems: Mutex<Vec<Problem>>,
    problem_count: AtomicU64,
    pub checked: [AtomicU64; 4],
    pub bytes: AtomicU64,
    /// Objects whose inverse translation is not exact (docs/translation.md, "Round trips"),
    /// checked forward against SOURCE instead, or left unchecked.
    irreversible: Mutex<Vec<(ObjectId, bool)>>,
}

impl Sink {
    pub fn report(&self, problem: Problem) {
        self.problem_count.fetch_add(1, Ordering::Relaxed);
        let mut kept = self.problems.lock().expect("no panics while locked");
        if kept.len() < MAX_KEPT {
            kept.push(problem);
        }
    }

    pub fn into_parts(self) -> Collected {
        let mut problems = self.problems.into_inner().expect("no panics while locked");
        problems.sort_by_key(|p| p.to_string());
        let mut irreversible = self.irreversible.into_inner().expect("no panics");
        irreversible.sort();
        Collected {
            problems,
            problem_count: self.problem_count.into_inner(),
            checked: self.checked.map(AtomicU64::into_inner),
            bytes: self.bytes.into_inner(),
            irreversible,
        }
    }
}

/// What a [`Sink`] gathered.
pub struct Collected {
    pub problems: Vec<Problem>,
    pub problem_count: u64,
    /// By kind, in [`kind_slot`] order.
    pub checked: [u64; 4],
    pub bytes: u64,
    pub irreversible: Vec<(ObjectId, bool)>,
}

/// Everything an object check needs.
pub struct Checker<'a> {
    pub index: &'a MapIndex,
    pub source: Option<&'a SourceObjects>,
    pub sink: &'a Sink,
    pub progress: &'a dyn Progress,
}

impl Checker<'_> {
    /// Which way the conversion went.
    fn direction(&self) -> Direction {
        self.index.direction()
    }

    /// Checks every pack under `objects/pack` and every loose object.
    pub fn check_repository(&self, objects_dir: &Path) -> Result<(), super::error::VerifyError> {
        let pack_dir = objects_dir.join("pack");
        let packs = list_packs(&pack_dir).map_err(|e| VerifyError::io(&pack_dir, e))?;
        for idx in packs {
            self.check_pack(&idx);
        }
        match loose::list_loose(objects_dir, self.direction().dest()) {
            Ok(ids) => ids.par_iter().for_each(|id| {
                match loose::read_loose(objects_dir, id) {
                    Ok((kind, body)) => self.check_object(*id, kind, &body),
                    Err(e) => self.sink.report(Problem::Unreadable {
                        path: loose::loose_path(objects_dir, id),
                        reason: e.to_string(),
                    }),
                }
                self.progress.advance(1);
            }),
            Err(e) => self.sink.report(Problem::Unreadable {
                path: objects_dir.to_owned(),
                reason: e.to_string(),
            }),
        }
        Ok(())
    }

    fn check_pack(&self, idx_path: &Path) {
        let pack = match Pack::open(idx_path, self.direction().dest()) {
            Ok(pack) => pack,
            Err(e) => {
                return self.sink.report(Problem::Unreadable {
                    path: idx_path.to_owned(),
                    reason: e.to_string(),
                });
            }
        };
        if pack.data.verify_checksum().is_err() {
            self.sink.report(Problem::FileChecksum {
                path: pack.data.path().to_owned(),
            });
        }
        if pack.idx.verify_checksum().is_err() {
            self.sink.report(Problem::FileChecksum {
                path: pack.idx.path().to_owned(),
            });
        }
        // As git's verify-pack: a flipped bit that inflating cannot see
        // (a zlib stream's padding) still changes the entry's CRC32.
        match crc_mismatches(&pack, false) {
            Ok(mismatches) => {
                for (id, offset) in mismatches {
                    self.sink.report(Problem::EntryCrc {
                        id,
                        path: pack.data.path().to_owned(),
                        offset,
                    });
                }
            }
            Err(e) => self.sink.report(Problem::Unreadable {
                path: pack.data.path().to_owned(),
                reason: e.to_string(),
            }),
        }
        // A DEST pack is self-contained: no base outside it.
        let external = |_: &ObjectId| None;
        let visit = |index: u32, _offset: u64, kind: ObjectKind, body: &[u8]| {
            self.check_object(pack.idx.oid_at(index), kind, body);
            self.progress.advance(1);
            Ok::<(), PackError>(())
        };
        if pack.traverse(&external, &visit).is_ok() {
            return;
        }
        // Some entry stopped the walk: read each entry on its own. Objects
        // already checked are checked again, which reports nothing new.
        (0..pack.idx.num_objects()).into_par_iter().for_each_init(
            || (DeltaCache::new(32 << 20), Vec::new()),
            |(cache, body), index| {
                let id = pack.idx.oid_at(index);
                match pack.read_at(pack.idx.offset_at(index), cache, &external, body) {
                    Ok(kind) => self.check_object(id, kind, body),
                    Err(e) => self.sink.report(Problem::Unreadable {
                        path: pack.data.path().to_owned(),
                        reason: format!("object {id}: {e}"),
                    }),
                }
            },
        );
    }

    /// Checks one object whose stored name is `stored`.
    pub fn check_object(&self, stored: ObjectId, kind: ObjectKind, body: &[u8]) {
        let sink = self.sink;
        let direction = self.direction();
        let untranslatable = |reason: String| Problem::Untranslatable {
            id: stored,
            kind,
            to: direction.source(),
            reason,
        };
        let actual = match object_id(direction.dest(), kind, body) {
            Ok(actual) => actual,
            Err(collision) => return sink.report(untranslatable(collision.to_string())),
        };
        if actual != stored {
            return sink.report(Problem::NameMismatch {
                stored,
                kind,
                actual,
            });
        }
        let Some(pos) = self.index.find(&stored) else {
            return self.check_created(stored, kind, body.len());
        };
        if self.index.mark_seen(pos) {
            return; // stored twice; checked already
        }
        sink.checked[kind_slot(kind)].fetch_add(1, Ordering::Relaxed);
        sink.bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
        let row = self.index.row(pos);
        if row.kind != kind {
            return sink.report(Problem::KindMismatch {
                id: stored,
                actual: kind,
                mapped: row.kind,
            });
        }
        let mapped = self.index.name_in(pos, direction.source());
        // A mergetag kept verbatim is copied back only where the map says
        // the conversion kept one; anywhere else it is a mismatch.
        let opts = TranslateOptions {
            verbatim_mergetags: self.index.keeps_mergetags(pos),
            ..TranslateOptions::default()
        };
        let mut source_body = Vec::new();
        let other = |id: &ObjectId| self.index.other_name(id);
        if let Err(e) = translate_object(
            kind,
            body,
            direction.dest(),
            direction.source(),
            &other,
            opts,
            &mut source_body,
        ) {
            return sink.report(untranslatable(e.to_string()));
        }
        let back = match object_id(direction.source(), kind, &source_body) {
            Ok(id) => id,
            Err(collision) => return sink.report(untranslatable(collision.to_string())),
        };
        if back == mapped {
            return;
        }
        // The inverse is exact only under the conditions docs/translation.md
        // gives ("Round trips"). When translating the recovered body forward again does not
        // give DEST's body back, the object is one of those exceptions
        // (e.g. a tag whose signature lacks its final LF): only SOURCE can
        // tell whether the map row is right.
        match self.source {
            Some(source) => {
                let dest = Dest {
                    stored,
                    kind,
                    body,
                    opts,
                };
                self.check_against_source(source, dest, mapped)
            }
            None if !self.translates_forward_to(kind, &source_body, opts, body) => {
                sink.irreversible
                    .lock()
                    .expect("no panics while locked")
                    .push((stored, false));
            }
            None => sink.report(Problem::BackMismatch {
                id: stored,
                kind,
                mapped,
                actual: back,
            }),
        }
    }

    /// An object with no map row: it must be one the conversion created
    /// (`--rekey-notes`), of the recorded type. It has no name in SOURCE's
    /// hash to check against; its name was checked above.
    fn check_created(&self, stored: ObjectId, kind: ObjectKind, len: usize) {
        let sink = self.sink;
        let Some((pos, created)) = self.index.find_created(&stored) else {
            return sink.report(Problem::NotInMap { id: stored, kind });
        };
        if self.index.mark_created_seen(pos) {
            return;
        }
        sink.checked[kind_slot(kind)].fetch_add(1, Ordering::Relaxed);
        sink.bytes.fetch_add(len as u64, Ordering::Relaxed);
        if created.kind != kind {
            sink.report(Problem::KindMismatch {
                id: stored,
                actual: kind,
                mapped: created.kind,
            });
        }
    }

    /// Whether `source_body`, a SOURCE object of `kind`, translates forward
    /// (SOURCE's hash to DEST's) to exactly `dest_body`.
    fn translates_forward_to(
        &self,
        kind: ObjectKind,
        source_body: &[u8],
        opts: TranslateOptions,
        dest_body: &[u8],
    ) -> bool {
        let direction = self.direction();
        let other = |id: &ObjectId| self.index.other_name(id);
        let mut translated = Vec::new();
        translate_object(
            kind,
            source_body,
            direction.source(),
            direction.dest(),
            &other,
            opts,
            &mut translated,
        )
        .is_ok()
            && translated == dest_body
    }

    /// Translates SOURCE's object `mapped` forward and compares with DEST's body.
    fn check_against_source(&self, source: &SourceObjects, dest: Dest<'_>, mapped: ObjectId) {
        let Dest {
            stored,
            kind,
            body,
            opts,
        } = dest;
        let direction = self.direction();
        let mismatch = || Problem::SourceMismatch {
            id: stored,
            kind,
            original: mapped,
        };
        let Some((source_kind, source_body)) = source.read(&mapped) else {
            return self.sink.report(mismatch());
        };
        let ok = source_kind == kind
            && object_id(direction.source(), kind, &source_body).ok() == Some(mapped)
            && self.translates_forward_to(kind, &source_body, opts, body);
        if ok {
            self.sink
                .irreversible
                .lock()
                .expect("no panics while locked")
                .push((stored, true));
        } else {
            self.sink.report(mismatch());
        }
    }
}

/// A DEST object being checked, and how its row says it was translated.
struct Dest<'a> {
    stored: ObjectId,
    kind: ObjectKind,
    body: &'a [u8],
    opts: TranslateOptions,
}

pub fn kind_slot(kind: ObjectKind) -> usize {
    match kind {
        ObjectKind::Commit => 0,
        ObjectKind::Tree => 1,
        ObjectKind::Blob => 2,
        ObjectKind::Tag => 3,
    }
}
