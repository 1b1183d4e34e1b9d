//! Naming the objects made in DEST: each gets the SHA-1 name of its SHA-1
//! form (`translate.rs`), in the plan's dependency order (blobs, then the
//! waves), and the pairs of each chunk are recorded in DEST's map in one
//! transaction, so the map stays closed under references and a run after
//! a kill finds them there. Only then is it known which of them MIRROR
//! lacks: one MIRROR got by other means (the same file added on both
//! sides) is not written again.

use rayon::prelude::*;

use super::dest_objects::DestObjects;
use super::error::ExportError;
use super::mirror_objects::ObjectNames;
use super::plan::{Item, Plan, Step};
use super::sha1_names::Names;
use super::translate::{blob_sha1, sha1_form};
use crate::hash::ObjectId;
use crate::idmap::{IdMap, MapRow};
use crate::object::ObjectKind;
use crate::pack::DeltaCache;
use crate::pipeline::Interrupted;
use crate::pipeline::StopPoints;
use crate::pipeline::chunking::chunks_within;
use crate::progress::Progress;
use crate::translate::TranslateOptions;

const CHUNK: usize = 1024;
const CHUNK_BYTES: u64 = 64 << 20;

/// What naming reads.
pub struct NameInputs<'a> {
    pub dest: &'a DestObjects,
    pub mirror: &'a ObjectNames,
    pub segments: &'a ObjectNames,
    pub translate: TranslateOptions,
    pub stops: &'a StopPoints,
    pub progress: &'a dyn Progress,
}

/// Names every object of `plan` made in DEST, records the pairs, and
/// turns each into an object to write, one a segment holds, or nothing
/// (dropped from the plan) when MIRROR has it. Returns the pairs recorded.
pub fn name_new_objects(
    inputs: &NameInputs<'_>,
    plan: &mut Plan,
    names: &mut Names,
    map: &mut IdMap,
) -> Result<u64, ExportError> {
    let total = plan.items().filter(|i| i.step == Step::Name).count();
    if total == 0 {
        return Ok(0);
    }
    inputs
        .progress
        .start("naming new objects", Some(total as u64));
    let mut recorded = 0;
    for stage in std::iter::once(&mut plan.blobs).chain(plan.waves.iter_mut()) {
        let new: Vec<u32> = (0..stage.len() as u32)
            .filter(|&k| stage[k as usize].step == Step::Name)
            .collect();
        let dest = inputs.dest;
        let sizes = |k: u32| dest.stored_size(stage[k as usize].at);
        for chunk in chunks_within(&new, CHUNK, CHUNK_BYTES, sizes) {
            if inputs.stops.interrupted() {
                return Err(Interrupted.into());
            }
            let names_ro = &*names;
            let named: Vec<(u32, ObjectId)> = chunk
                .par_iter()
                .map_init(
                    || (DeltaCache::new(16 << 20), Vec::new(), Vec::new()),
                    |(cache, body, out), &k| {
                        let sha1 =
                            name_one(inputs, names_ro, &stage[k as usize], cache, body, out)?;
                        Ok::<_, ExportError>((k, sha1))
                    },
                )
                .collect::<Result<_, _>>()?;
            let rows: Vec<MapRow> = named
                .iter()
                .map(|&(k, sha1)| {
                    let item = &stage[k as usize];
                    MapRow {
                        sha1,
                        sha256: dest.id(item.at),
                        kind: item.kind,
                    }
                })
                .collect();
            for row in &rows {
                names.add(&row.sha256, &row.sha1);
            }
            map.record_exported(&rows)?;
            recorded += rows.len() as u64;
            inputs.stops.kill_point(super::phase::COMMITTED);
            for (k, sha1) in named {
                stage[k as usize].step = if inputs.mirror.has(&sha1) {
                    Step::Name // left for `retain` below: MIRROR has it
                } else if inputs.segments.has(&sha1) {
                    Step::InSegment
                } else {
                    Step::Write
                };
            }
            inputs.progress.advance(chunk.len() as u64);
        }
        stage.retain(|i| i.step != Step::Name);
    }
    plan.waves.retain(|wave| !wave.is_empty());
    inputs.progress.finish();
    Ok(recorded)
}

/// The SHA-1 name of one object made in DEST.
fn name_one(
    inputs: &NameInputs<'_>,
    names: &Names,
    item: &Item,
    cache: &mut DeltaCache,
    body: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> Result<ObjectId, ExportError> {
    let dest = inputs.dest;
    let id = dest.id(item.at);
    let kind = dest.read(item.at, cache, body)?;
    let sha1 = if kind == ObjectKind::Blob {
        blob_sha1(id, body)?
    } else {
        sha1_form(id, kind, body, names, inputs.translate, out)?
    };
    Ok(sha1)
}
