//! The map pass: translate trees, commits and tags wave by wave, name them
//! in SHA-256 and append them to the output pack.
//!
//! Each wave is cut into chunks; a chunk is read, translated, hashed and
//! deflated in parallel, then appended to the pack in a fixed order, so the
//! output does not depend on the thread count. The output is segmented
//! (`journal.rs`): a chunk boundary is where Ctrl-C stops a run.

use std::cell::RefCell;
use std::collections::BTreeMap;

use rayon::prelude::*;

use super::ConvertError;
use super::deflate::deflate;
use super::inventory::Inventory;
use super::journal::SegmentWriter;
use super::progress::Progress;
use super::table::ObjectTable;
use crate::hash::{HashKind, ObjectId, sha256_object_id};
use crate::object::ObjectKind;
use crate::pack::DeltaCache;
use crate::translate::{TranslateOptions, translate_object};

/// Objects per parallel chunk: enough to keep every core busy, few enough
/// that the chunk's bodies stay small in memory.
const CHUNK: usize = 1024;

/// Bytes of inflated delta bases each worker thread keeps for reuse.
pub const CACHE_BYTES_PER_THREAD: usize = 64 << 20;

thread_local! {
    static CACHE: RefCell<DeltaCache> = RefCell::new(DeltaCache::new(CACHE_BYTES_PER_THREAD));
}

/// Counts from the map pass.
#[derive(Debug, Default)]
pub struct MapOutcome {
    /// Unknown commit header fields copied verbatim, by name.
    pub unknown_headers: BTreeMap<String, u64>,
    pub translated: u64,
}

struct Translated {
    at: u32,
    kind: ObjectKind,
    sha256: [u8; 32],
    size: u64,
    zlib: Vec<u8>,
    unknown_headers: Vec<String>,
}

pub fn map_pass(
    inventory: &Inventory,
    table: &mut ObjectTable,
    waves: &[Vec<u32>],
    opts: TranslateOptions,
    level: u32,
    pack: &mut SegmentWriter<'_>,
    progress: &dyn Progress,
) -> Result<MapOutcome, ConvertError> {
    let total: usize = waves.iter().map(Vec::len).sum();
    progress.start("translating trees, commits, tags", Some(total as u64));
    let mut outcome = MapOutcome::default();
    for wave in waves {
        for chunk in wave.chunks(CHUNK) {
            let table_ref: &ObjectTable = table;
            let done: Vec<Translated> = chunk
                .par_iter()
                .map(|&at| translate_one(inventory, table_ref, at, opts, level))
                .collect::<Result<_, _>>()?;
            for t in done {
                table.set_sha256(t.at, t.sha256);
                let sha1 = table.sha1(t.at);
                pack.add_compressed(sha1, ObjectId::Sha256(t.sha256), t.kind, t.size, &t.zlib)?;
                for name in t.unknown_headers {
                    *outcome.unknown_headers.entry(name).or_default() += 1;
                }
            }
            outcome.translated += chunk.len() as u64;
            progress.advance(chunk.len() as u64);
            pack.checkpoint()?;
        }
    }
    progress.finish();
    Ok(outcome)
}

fn translate_one(
    inventory: &Inventory,
    table: &ObjectTable,
    at: u32,
    opts: TranslateOptions,
    level: u32,
) -> Result<Translated, ConvertError> {
    let mut body = Vec::new();
    let kind = CACHE.with_borrow_mut(|cache| inventory.read(table, at, cache, &mut body))?;
    let mut out = Vec::with_capacity(body.len() + body.len() / 2);
    let mapper = |id: &ObjectId| table.map_sha1(id);
    let notes = translate_object(
        kind,
        &body,
        HashKind::Sha1,
        HashKind::Sha256,
        &mapper,
        opts,
        &mut out,
    )
    .map_err(|source| ConvertError::Translate {
        id: table.sha1(at),
        kind,
        source,
    })?;
    let ObjectId::Sha256(sha256) = sha256_object_id(kind, &out) else {
        unreachable!("sha256_object_id returns SHA-256 ids")
    };
    Ok(Translated {
        at,
        kind,
        sha256,
        size: out.len() as u64,
        zlib: deflate(&out, level),
        unknown_headers: notes.unknown_headers,
    })
}
