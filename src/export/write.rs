//! The write pass: every object of the plan that MIRROR lacks, in the
//! plan's order, into MIRROR's segments. Every one is named by now (by
//! DEST's map, or by `name_new_objects.rs` for the objects made in DEST). Objects are
//! prepared in parallel chunks (read from DEST, their names checked,
//! translated back and checked against their recorded SHA-1, compressed),
//! then appended in order:
//!
//! - a blob DEST stores whole is copied as its compressed bytes (checked
//!   against the CRC32 of its index), and one DEST stores as a delta of a
//!   blob the plan puts earlier is copied as that delta: blob bytes are
//!   the same in both worlds. Trees, commits and tags are stored whole or
//!   as deltas of others of the chunk (`sha1_deltas.rs`), compressed anew.
//!
//! A chunk holds at most [`CHUNK`] objects and about [`CHUNK_BYTES`] of
//! DEST's stored bytes, which bounds what it holds in memory.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;

use rayon::prelude::*;

use super::dest_objects::{DestObjects, Stored};
use super::error::{ExportError, ExportRefusal};
use super::plan::{Item, Plan, Step, named_sha1};
use super::segments::{SegmentEntry, Segments};
use super::sha1_deltas::{Compressed, deltify};
use super::sha1_names::Names;
use super::translate::sha1_form;
use crate::hash::ObjectId;
use crate::object::ObjectKind;
use crate::pack::DeltaCache;
use crate::pipeline::Interrupted;
use crate::pipeline::StopPoints;
use crate::pipeline::chunking::chunks_within;
use crate::progress::Progress;
use crate::translate::TranslateOptions;
use crate::zlib::deflate;

const CHUNK: usize = 1024;
const CHUNK_BYTES: u64 = 64 << 20;

/// What the write pass reads.
pub struct WriteInputs<'a> {
    pub dest: &'a DestObjects,
    pub plan: &'a Plan,
    pub translate: TranslateOptions,
    /// zlib level of what is deflated anew.
    pub level: u32,
    pub segment_dir: PathBuf,
    /// DEST's map, for messages.
    pub map_path: &'a std::path::Path,
    pub stops: &'a StopPoints,
    pub progress: &'a dyn Progress,
}

/// What the write pass did.
#[derive(Debug, Default)]
pub struct Written {
    pub by_kind: BTreeMap<ObjectKind, u64>,
    pub blobs_copied: u64,
    pub segments: u32,
    /// The SHA-1 of every object of the plan and its place in the plan's
    /// order, sorted by SHA-1: the order of the folded pack.
    pub order: Vec<([u8; 20], u32)>,
}

/// What goes into the segment for one object.
enum Payload<'a> {
    /// Nothing: a segment of an interrupted run holds it.
    Nothing,
    Whole {
        size: u64,
        zlib: Cow<'a, [u8]>,
    },
    /// The SHA-1 body of a tree, commit or tag, until the chunk's delta
    /// search decides how it is stored.
    Body(Vec<u8>),
    Delta {
        base: Base,
        size: u64,
        zlib: Cow<'a, [u8]>,
    },
}

/// The base of a delta.
enum Base {
    /// The object DEST stores under this SHA-256 name (a blob's stored
    /// delta, copied): named by the time it is appended.
    Stored(ObjectId),
    /// The object of this SHA-1 name (the chunk's delta search).
    Named(ObjectId),
}

struct Prepared<'a> {
    item: Item,
    sha1: ObjectId,
    payload: Payload<'a>,
}

/// Writes every object of the plan (all named by now).
pub fn write_objects<'b>(inputs: &WriteInputs<'b>, names: &Names) -> Result<Written, ExportError> {
    let plan = inputs.plan;
    let total_items = plan.items().count() as u64;
    let to_write = plan.items().filter(|i| i.step != Step::InSegment).count() as u64;
    let mut segments = Segments::new(inputs.segment_dir.clone(), inputs.stops, to_write);
    let mut written = Written::default();
    inputs.progress.start("writing objects", Some(total_items));
    let stages = std::iter::once(&plan.blobs).chain(&plan.waves);
    let mut position = 0u32;
    for stage in stages {
        let numbers: Vec<u32> = (0..stage.len() as u32).collect();
        let dest = inputs.dest;
        let sizes = |k: u32| dest.stored_size(stage[k as usize].at);
        for chunk in chunks_within(&numbers, CHUNK, CHUNK_BYTES, sizes) {
            if inputs.stops.interrupted() {
                return Err(Interrupted.into());
            }
            let prepared: Vec<Prepared<'b>> = chunk
                .par_iter()
                .map_init(
                    || (DeltaCache::new(16 << 20), Vec::new(), Vec::new()),
                    |(cache, body, out), &k| {
                        let prep = Prep {
                            inputs,
                            names,
                            stage,
                        };
                        prep.prepare(k as usize, cache, body, out)
                    },
                )
                .collect::<Result<_, _>>()?;
            let prepared = search_deltas(prepared, inputs.level);
            for p in prepared {
                if let ObjectId::Sha1(raw) = p.sha1 {
                    written.order.push((raw, position));
                }
                position += 1;
                append(&mut segments, names, p, &mut written)?;
            }
            inputs.progress.advance(chunk.len() as u64);
        }
    }
    inputs.progress.finish();
    written.segments = segments.finished;
    written.order.par_sort_unstable();
    Ok(written)
}

/// Decides how the chunk's trees, commits and tags are stored: whole, or
/// as deltas of others of the chunk (`sha1_deltas.rs`).
fn search_deltas(mut prepared: Vec<Prepared<'_>>, level: u32) -> Vec<Prepared<'_>> {
    let with_body: Vec<usize> = (0..prepared.len())
        .filter(|&i| matches!(prepared[i].payload, Payload::Body(_)))
        .collect();
    if with_body.is_empty() {
        return prepared;
    }
    let bodies: Vec<(ObjectKind, &[u8])> = with_body
        .iter()
        .map(|&i| match &prepared[i].payload {
            Payload::Body(body) => (prepared[i].item.kind, body.as_slice()),
            _ => unreachable!("filtered above"),
        })
        .collect();
    let stored = deltify(&bodies, level);
    let sizes: Vec<u64> = bodies.iter().map(|(_, b)| b.len() as u64).collect();
    for ((&i, how), size) in with_body.iter().zip(stored).zip(sizes) {
        prepared[i].payload = match how {
            Compressed::Whole(zlib) => Payload::Whole {
                size,
                zlib: Cow::Owned(zlib),
            },
            Compressed::Delta { base, size, zlib } => Payload::Delta {
                base: Base::Named(prepared[with_body[base]].sha1),
                size,
                zlib: Cow::Owned(zlib),
            },
        };
    }
    prepared
}

fn append(
    segments: &mut Segments<'_>,
    names: &Names,
    p: Prepared<'_>,
    written: &mut Written,
) -> Result<(), ExportError> {
    let kind = p.item.kind;
    let (entry, zlib) = match p.payload {
        Payload::Nothing => return Ok(()),
        Payload::Body(_) => unreachable!("the delta search decided every body"),
        Payload::Whole { size, zlib } => (None, (size, zlib)),
        Payload::Delta { base, size, zlib } => {
            let base = match base {
                Base::Named(sha1) => sha1,
                Base::Stored(sha256) => names
                    .sha1_of(&sha256)
                    .expect("a delta's base comes earlier in the plan, so it is named"),
            };
            (Some(base), (size, zlib))
        }
    };
    let (size, zlib) = zlib;
    // Only a blob's bytes are borrowed from DEST: copied as stored.
    written.blobs_copied += u64::from(matches!(zlib, Cow::Borrowed(_)));
    let id = p.sha1;
    segments.add(match entry {
        None => SegmentEntry::Whole {
            id,
            kind,
            size,
            zlib: &zlib,
        },
        Some(base) => SegmentEntry::Delta {
            id,
            base,
            size,
            zlib: &zlib,
        },
    })?;
    *written.by_kind.entry(kind).or_default() += 1;
    Ok(())
}

/// Prepares the objects of one stage of the plan.
struct Prep<'a, 'b> {
    inputs: &'a WriteInputs<'b>,
    names: &'a Names,
    stage: &'a [Item],
}

impl<'b> Prep<'_, 'b> {
    fn prepare(
        &self,
        k: usize,
        cache: &mut DeltaCache,
        body: &mut Vec<u8>,
        out: &mut Vec<u8>,
    ) -> Result<Prepared<'b>, ExportError> {
        let dest = self.inputs.dest;
        let item = self.stage[k];
        let id = dest.id(item.at);
        let named = named_sha1(self.names, &id).expect("every object of the plan is named by now");
        let payload = match (item.step, item.kind) {
            (Step::InSegment, _) => Payload::Nothing,
            (_, ObjectKind::Blob) => self.blob_payload(k, cache, body)?,
            (_, _) => {
                let kind = dest.read(item.at, cache, body)?;
                let sha1 = sha1_form(id, kind, body, self.names, self.inputs.translate, out)?;
                if sha1 != named {
                    return Err(ExportRefusal::Irreversible {
                        id,
                        kind,
                        actual: sha1,
                        mapped: named,
                    }
                    .into());
                }
                Payload::Body(std::mem::take(out))
            }
        };
        Ok(Prepared {
            item,
            sha1: named,
            payload,
        })
    }

    /// A blob, copied as DEST stores it when it can be: whole, or as a
    /// delta of a blob earlier in the plan; else inflated and deflated
    /// (and so checked against its name, like an entry whose type is not
    /// the blob the map says).
    fn blob_payload(
        &self,
        k: usize,
        cache: &mut DeltaCache,
        body: &mut Vec<u8>,
    ) -> Result<Payload<'b>, ExportError> {
        let dest = self.inputs.dest;
        let at = self.stage[k].at;
        Ok(match dest.stored(at)? {
            Some(Stored::Whole {
                kind: ObjectKind::Blob,
                zlib,
                size,
            }) => Payload::Whole {
                size,
                zlib: Cow::Borrowed(zlib),
            },
            Some(Stored::Delta { base, zlib, size }) if self.earlier(base, k) => Payload::Delta {
                base: Base::Stored(dest.id(base)),
                size,
                zlib: Cow::Borrowed(zlib),
            },
            _ => {
                let kind = dest.read(at, cache, body)?;
                if kind != ObjectKind::Blob {
                    return Err(crate::idmap::IdMapError::CorruptRow {
                        path: self.inputs.map_path.to_path_buf(),
                        reason: format!("{} is a {kind}, its row says blob", dest.id(at)),
                    }
                    .into());
                }
                Payload::Whole {
                    size: body.len() as u64,
                    zlib: Cow::Owned(deflate(body, self.inputs.level)),
                }
            }
        })
    }

    /// Whether the blob stored at `base` comes before blob number `k` of
    /// the plan (and so is in a segment this run's fold reads, named).
    fn earlier(&self, base: super::dest_objects::Location, k: usize) -> bool {
        let dest = self.inputs.dest;
        let key = dest.storage_key(base);
        self.stage
            .binary_search_by_key(&key, |i| dest.storage_key(i.at))
            .is_ok_and(|j| j < k)
    }
}
