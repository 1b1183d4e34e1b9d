//! The map pass: translate trees, commits and tags wave by wave, name them
//! in SHA-256 and append them to the output segments.
//!
//! Each wave is cut into chunks; a chunk is read, translated, hashed and
//! deflated in parallel, then appended to the pack in a fixed order, so the
//! output does not depend on the thread count. Chunks are prepared ahead
//! of the appends ([`map_pass`]), which go to a sequence of segments of
//! their own, written while the blob pass writes the other
//! (`segments/sequence.rs`): a chunk boundary is where Ctrl-C stops a run.
//!
//! Deltas: an object the source pack stores as a delta against another
//! object is stored as a delta against that object's translated form, made
//! anew (ids grow from 20 to 32 bytes, so the source delta cannot be
//! reused); the schedule names the base first, even when the source pack
//! stores it later. A tree's delta comes from lining up the entries
//! of the two SHA-1 trees (`tree_delta`: the base is read, usually from the
//! cache, but neither translated nor indexed); a commit's or tag's from
//! diffing the translated base, read and translated again. Either is much
//! cheaper than deflating the whole object. The delta is a REF_DELTA that
//! may name a base in any segment of the conversion; the finish step
//! (`convert/finish/`) puts the base first in the one pack.
//!
//! A resumed run plans the objects an interrupted run wrote with the rest,
//! restarts at the chunk of the first object it did not write
//! (`pipeline/chunking.rs`), its search starting from the objects before that chunk
//! and the chains they were written with (`search_tail.rs`), and prepares
//! the written objects from there on again without writing them: until
//! then they count as unnamed, as they were for the interrupted run, so
//! that its choices, and the pack, are those of a run that was never
//! interrupted.
//!
//! With a search (the default), every object goes through the window
//! search over fixed pieces of each chunk (`piece_search.rs`,
//! `pack/delta_search/window.rs`), each wave first put in git's search order (by
//! type, name hash, size, place in SOURCE). The source pairing above is
//! kept only without a search (`--window 0`); objects it does not serve
//! (loose ones, deltas whose source base the schedule let go to break a
//! ring with references) are then stored whole.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::convert::error::ConvertError;
use crate::convert::error::CorruptInput;
use crate::convert::reach_record::{ReachRecorder, Reached};
use crate::convert::segments::sequence::SegmentWriter;
use crate::convert::source_objects::inventory::Inventory;
use crate::convert::source_objects::read_cache;
use crate::convert::source_objects::table::{Location, ObjectTable};
use crate::convert::write::delta_policy::{DeltaOptions, git_order, pieces};
use crate::convert::write::pass::Pass;
use crate::convert::write::piece_search::{ChunkSearch, Searchable, Searched};
use crate::convert::write::search_tail::Tail;
use crate::convert::write::tree_translation::translate_tree_reaching;
use crate::hash::ObjectId;
use crate::object::ObjectKind;
use crate::object::object_id;
use crate::pack::{Found, NOT_IN_WINDOW, encode_delta, first_limit, tree_delta};
use crate::pipeline::chunking::{chunks_within, restart_at};
use crate::translate::{
    TranslateOptions, translate_object, translate_tag_with_unterminated_signature,
};
use crate::zlib::deflate;

/// Objects per parallel chunk: enough to keep every core busy, few enough
/// that the chunk's bodies stay small in memory.
const CHUNK: usize = 1024;
/// Inflated source bytes per chunk. A chunk holds its objects' translated
/// bodies (a third larger) and their compressed forms while the previous
/// chunk is appended, so this bounds the pass's memory by a budget instead
/// of by the size of the repository's largest trees. On git.git, whose
/// trees are wide, 16 MiB chunks held 35 MB more at the peak than 4 MiB
/// ones, for the same CPU time and (with a search) a pack as small.
const CHUNK_BYTES: u64 = 4 << 20;

/// Counts from the map pass.
#[derive(Debug, Default)]
pub struct MapOutcome {
    /// Unknown commit header fields copied verbatim, by name.
    pub unknown_headers: BTreeMap<String, u64>,
    pub translated: u64,
    /// Objects stored as deltas against their source delta base.
    pub deltas: u64,
}

/// Prepared chunks wait for the pack by the hundred thousand on large
/// repositories, so this is kept small: 80 bytes plus the stream and what
/// the object reaches (names stay in the table; the base is a table
/// position).
struct Translated {
    at: u32,
    kind: ObjectKind,
    stored: Stored,
    /// For the bitmap and the commit-graph (`convert/reach_record.rs`).
    reach: Option<Reached>,
    /// Empty for nearly every object: a boxed slice holds no allocation then.
    unknown_headers: Box<[String]>,
}

impl Translated {
    /// Bytes it holds until appended.
    fn held(&self) -> u64 {
        let (Stored::Whole { zlib, .. } | Stored::Delta { zlib, .. }) = &self.stored;
        zlib.len() as u64 + self.reach.as_ref().map_or(0, Reached::held)
    }
}

/// How a translated object goes into the pack.
enum Stored {
    /// Whole: its zlib stream.
    Whole { size: u64, zlib: Box<[u8]> },
    /// A delta against table object `base`, named already. Should the base
    /// land in an earlier segment, the object is translated again and
    /// stored whole: rare (segment boundaries), and keeping every delta's
    /// whole body until its append held far more memory than the deltas.
    Delta {
        base: u32,
        delta_size: u64,
        zlib: Box<[u8]>,
    },
}

/// Compressed bytes of prepared chunks that may wait for the pack. Since
/// the map pass has segments of its own, its appends no longer wait for
/// the blob pass; this bounds what is prepared while one chunk is
/// appended (chunks of huge trees).
const AHEAD_BYTES: u64 = 32 << 20;

/// Runs the map pass into `pack`, its own sequence of segments, as a
/// pipeline: while the pack is busy appending a chunk (sequential: the
/// pack stream and its checksum), the next chunks are read, translated,
/// named and compressed on the other threads, in order, up to
/// [`AHEAD_BYTES`] ahead. It runs beside the blob pass (`blob_pass.rs`), which
/// writes the other sequence: no tree needs a blob's pack, only its name,
/// which the scan knows. Preparing a chunk needs only the names of the
/// chunks before it, set when they were prepared, and the tail the chunk
/// before handed on (its last objects and their chains). The output is
/// the same however far ahead the preparing got. `waves` are in the order
/// written ([`search_order`]). Counts progress in objects appended.
pub fn map_pass(
    pass: &Pass<'_>,
    waves: &[Vec<u32>],
    pack: &mut SegmentWriter<'_, '_>,
    reach: &mut ReachRecorder,
) -> Result<MapOutcome, ConvertError> {
    let table = pass.table;
    let mut outcome = MapOutcome::default();
    let chunks = chunks_of(waves, pass.chunk(CHUNK), |at| u64::from(table.size(at)));
    let start = restart_at(chunks.iter().map(Chunk::objects), |at| table.is_carried(at));
    let unnamed = CarriedNotNamed::new(table, &chunks[start..]);
    let tail = match pass.deltas.searching() {
        true => {
            let before = chunks[..start].iter().flat_map(Chunk::objects);
            let before = before.map(|&at| (at, table.kind(at).expect("scanned")));
            let read = |at| read_translated(pass.inventory, table, at, pass.translate);
            let len = |_, body: &Arc<[u8]>| body.len() as u64;
            pass.written_tail(before, |at| read(at).map(Arc::from), len)?
        }
        false => Tail::empty(),
    };
    let mut ahead = Ahead {
        chunks: &chunks,
        next: start,
        tail: Some(tail),
        prepare: |chunk: &Chunk<'_>, tail: MapTail| prepare_chunk(pass, &unnamed, chunk, tail),
    };
    // The first chunk alone: nothing to append beside it yet.
    let mut ready = ahead.prepare_while(&AtomicBool::new(false));
    loop {
        let backlog = ready?;
        if backlog.is_empty() {
            break;
        }
        let appended;
        (appended, ready) = ahead.beside(|| append_all(pack, reach, backlog, &mut outcome));
        let objects = appended?;
        outcome.translated += objects;
        pass.progress.advance(objects);
    }
    Ok(outcome)
}

/// The chunks not prepared yet, in order, and the tail of the next one.
struct Ahead<'c, 'w, P> {
    chunks: &'c [Chunk<'w>],
    next: usize,
    tail: Option<MapTail>,
    prepare: P,
}

impl<P> Ahead<'_, '_, P>
where
    P: Fn(&Chunk<'_>, MapTail) -> Result<(Vec<Translated>, MapTail), ConvertError> + Send,
{
    /// Runs `pack_work` on this thread (first, alone with one thread) while
    /// the other side prepares the next chunk, then more until `pack_work`
    /// ends; returns both results.
    fn beside<T: Send>(
        &mut self,
        pack_work: impl FnOnce() -> T + Send,
    ) -> (T, Result<Vec<Vec<Translated>>, ConvertError>) {
        let busy = AtomicBool::new(true);
        rayon::join(
            || {
                let done = pack_work();
                busy.store(false, Ordering::Release);
                done
            },
            || self.prepare_while(&busy),
        )
    }

    /// Prepares the next chunk, then more while `busy` holds and they stay
    /// under [`AHEAD_BYTES`]; empty once every chunk was prepared.
    fn prepare_while(&mut self, busy: &AtomicBool) -> Result<Vec<Vec<Translated>>, ConvertError> {
        let mut ready = Vec::new();
        let mut bytes = 0;
        while let Some(chunk) = self.chunks.get(self.next) {
            if !ready.is_empty() && (bytes >= AHEAD_BYTES || !busy.load(Ordering::Acquire)) {
                break;
            }
            let tail = self.tail.take().expect("each chunk hands on a tail");
            let (done, tail) = (self.prepare)(chunk, tail)?;
            bytes += done.iter().map(Translated::held).sum::<u64>();
            ready.push(done);
            self.tail = Some(tail);
            self.next += 1;
        }
        Ok(ready)
    }
}

/// Appends prepared chunks in order, each a checkpoint; returns how many
/// objects went in.
fn append_all(
    pack: &mut SegmentWriter<'_, '_>,
    reach: &mut ReachRecorder,
    chunks: Vec<Vec<Translated>>,
    outcome: &mut MapOutcome,
) -> Result<u64, ConvertError> {
    let mut objects = 0;
    for done in chunks {
        objects += done.len() as u64;
        append(pack, reach, done, outcome)?;
        reach.end_chunk()?;
        pack.checkpoint()?;
    }
    Ok(objects)
}

/// Each wave in the order its objects are written: with a search, git's
/// search order (type, name hash, size); else the source order (reused
/// bases first).
pub fn search_order(
    table: &ObjectTable,
    waves: Vec<Vec<u32>>,
    deltas: DeltaOptions,
) -> Vec<Vec<u32>> {
    let kind = |i: u32| table.kind(i).map_or(0, |k| k as u8);
    waves
        .into_iter()
        .map(|mut wave| {
            if deltas.searching() {
                wave.sort_by_key(|&i| (kind(i), git_order(table, i)));
            }
            wave
        })
        .collect()
}

/// Waves smaller than this are merged with their neighbours into one
/// chunk named in order (a linear history is one wave per commit: naming
/// each alone would leave every other thread idle).
const SMALL_WAVE: usize = 64;

/// A unit of the map pass.
enum Chunk<'w> {
    /// Part of one wave: no object names another, all are named at once.
    OfWave(&'w [u32]),
    /// Whole consecutive small waves, in order: named one after the other.
    OfSmallWaves(Vec<u32>),
}

impl Chunk<'_> {
    fn objects(&self) -> &[u32] {
        match self {
            Chunk::OfWave(objects) => objects,
            Chunk::OfSmallWaves(objects) => objects,
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.objects().len()
    }
}

/// Cuts the waves into chunks of at most `max_objects` objects and
/// [`CHUNK_BYTES`] of source bytes (more only when a single object, or a
/// run of small waves, ends past it): a chunk never starts before a wave
/// its objects depend on is complete.
fn chunks_of(waves: &[Vec<u32>], max_objects: usize, size: impl Fn(u32) -> u64) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let (mut small, mut small_bytes): (Vec<u32>, u64) = (Vec::new(), 0);
    for wave in waves {
        if wave.len() < SMALL_WAVE {
            small.extend(wave);
            small_bytes += wave.iter().map(|&at| size(at)).sum::<u64>();
            if small.len() >= max_objects || small_bytes >= CHUNK_BYTES {
                chunks.push(Chunk::OfSmallWaves(std::mem::take(&mut small)));
                small_bytes = 0;
            }
            continue;
        }
        if !small.is_empty() {
            chunks.push(Chunk::OfSmallWaves(std::mem::take(&mut small)));
            small_bytes = 0;
        }
        let pieces = chunks_within(wave, max_objects, CHUNK_BYTES, &size);
        chunks.extend(pieces.into_iter().map(Chunk::OfWave));
    }
    if !small.is_empty() {
        chunks.push(Chunk::OfSmallWaves(small));
    }
    chunks
}

/// Reads, translates and names the objects of `chunk` (recording their
/// SHA-256 names in `table`), then decides how each is stored and
/// compresses it.
fn prepare_chunk(
    pass: &Pass<'_>,
    unnamed: &CarriedNotNamed,
    chunk: &Chunk<'_>,
    tail: MapTail,
) -> Result<(Vec<Translated>, MapTail), ConvertError> {
    let (inventory, table, opts, deltas) =
        (pass.inventory, pass.table, pass.translate, pass.deltas);
    // Name the whole chunk first, so that an object can be a delta
    // against an earlier object of the same chunk.
    let named: Vec<Named> = match chunk {
        Chunk::OfWave(objects) => {
            let named: Vec<Named> = objects
                .par_iter()
                .map(|&at| name_one(inventory, table, at, opts))
                .collect::<Result<_, _>>()?;
            for n in &named {
                name_unless_carried(table, n);
            }
            named
        }
        Chunk::OfSmallWaves(objects) => {
            // Each object may name the one before it (a commit its parent):
            // read in parallel, translate and name in order.
            let sources: Vec<(ObjectKind, Vec<u8>)> = objects
                .par_iter()
                .map(|&at| {
                    let mut body = Vec::new();
                    read_cache::read(inventory, table, at, &mut body).map(|kind| (kind, body))
                })
                .collect::<Result<_, _>>()?;
            let mut named_in_order = Vec::with_capacity(objects.len());
            for (&at, (kind, body)) in objects.iter().zip(sources) {
                let translation = translated(table, at, kind, &body, opts)?;
                let n = named(inventory, table, at, kind, body, translation)?;
                name_unless_carried(table, &n);
                named_in_order.push(n);
            }
            named_in_order
        }
    };
    unnamed.now_named(chunk.objects());
    let position: HashMap<u32, usize> = named.iter().enumerate().map(|(k, n)| (n.at, k)).collect();
    let ctx = ChunkContext {
        pass,
        unnamed,
        chunk: &named,
        position: &position,
    };
    let plans: Vec<Plan> = if deltas.reuse {
        (0..named.len())
            .into_par_iter()
            .map(|k| ctx.reused(k))
            .collect::<Result<_, _>>()?
    } else if deltas.searching() {
        (0..named.len()).map(|_| Plan::Search).collect()
    } else {
        (0..named.len())
            .into_par_iter()
            .map(|k| Plan::Done {
                stored: ctx.whole(k),
            })
            .collect()
    };
    // Every object is a candidate base for the later ones, the planned
    // `Search` ones look for a base. Pieces end where the type or name hash
    // changes (unnamed objects anywhere); the first starts from the objects
    // before the chunk.
    let objects: Vec<Searchable> = named
        .iter()
        .zip(&plans)
        .map(|(n, plan)| Searchable {
            at: n.at,
            kind: n.kind,
            fixed: match plan {
                Plan::Search => None,
                Plan::Done {
                    stored: Stored::Whole { .. },
                } => Some(0),
                // Bounded by its source chain's (`source_pairs.rs`).
                Plan::Done {
                    stored: Stored::Delta { .. },
                } => Some(pass.output_depth(n.at)),
            },
            source_base: pass.logged_source_base(n.at),
            size: n.body.len() as u64,
        })
        .collect();
    let key = |k: usize| match table.name_hash(named[k].at) {
        0 => None,
        hash => Some((named[k].kind, hash)),
    };
    let outside: Vec<Option<Found>> = if deltas.searching() {
        (0..named.len())
            .into_par_iter()
            .map(|k| match plans[k] {
                Plan::Search => ctx.outside_delta(k),
                Plan::Done { .. } => Ok(None),
            })
            .collect::<Result<_, _>>()?
    } else {
        Vec::new()
    };
    let search = ChunkSearch {
        objects: &objects,
        pieces: pieces(named.len(), key),
        opts: deltas.window_options(),
        outside: &outside,
    };
    let (found, tail) = search.run(
        tail,
        |k| Ok::<_, ConvertError>(Arc::<[u8]>::from(named[k].body.as_slice())),
        |at| read_translated(inventory, table, at, pass.translate).map(Arc::from),
    )?;
    for ((object, plan), searched) in objects.iter().zip(&plans).zip(&found) {
        let depth = match plan {
            Plan::Search => searched.found.as_ref().map_or(0, |f| f.depth),
            Plan::Done { .. } => object.fixed.unwrap_or(0),
        };
        pass.depths.set(object.at, depth);
    }
    let stored: Vec<Stored> = plans
        .into_par_iter()
        .zip(found)
        .enumerate()
        .map(|(k, (plan, searched))| match plan {
            Plan::Done { stored } => Ok(stored),
            Plan::Search => ctx.searched(k, searched),
        })
        .collect::<Result<_, ConvertError>>()?;
    // Objects an interrupted run wrote were prepared again only for the
    // windows and the deltas of those after them.
    let translated = stored
        .into_iter()
        .zip(named)
        .filter(|(_, n)| !table.is_carried(n.at))
        .map(|(stored, n)| Translated {
            at: n.at,
            kind: n.kind,
            stored,
            reach: n.reach,
            unknown_headers: n.unknown_headers.into_boxed_slice(),
        })
        .collect();
    Ok((translated, tail))
}

/// The objects before a chunk, which its search starts from; bodies shared
/// with the chunk that named them.
type MapTail = Tail<Arc<[u8]>>;

/// How one object of a chunk is stored, before the window search.
enum Plan {
    /// Decided.
    Done { stored: Stored },
    /// For the window search.
    Search,
}

/// What the source pack's pairing offers one object.
enum SourcePairing {
    /// A delta against the translated source base (its table position).
    Delta(u32, Vec<u8>),
    /// Whole in the source, its chain cut there, or its delta would not
    /// pay: whole.
    Whole,
    /// Loose, or its source base is not named before it: left to the
    /// window search.
    Unserved,
}

/// Appends a prepared chunk in order.
fn append(
    pack: &mut SegmentWriter<'_, '_>,
    reach: &mut ReachRecorder,
    done: Vec<Translated>,
    outcome: &mut MapOutcome,
) -> Result<(), ConvertError> {
    for t in done {
        if let Some(reached) = &t.reach {
            reach.record(t.at, t.kind, reached);
        }
        match t.stored {
            Stored::Whole { size, zlib } => pack.add_compressed(t.at, t.kind, size, &zlib)?,
            Stored::Delta {
                base,
                delta_size,
                zlib,
            } => {
                pack.add_delta_compressed(t.at, base, delta_size, &zlib)?;
                outcome.deltas += 1;
            }
        }
        for name in t.unknown_headers.into_vec() {
            *outcome.unknown_headers.entry(name).or_default() += 1;
        }
    }
    Ok(())
}

/// A translated object of the current chunk and its DEST name.
struct Named {
    at: u32,
    kind: ObjectKind,
    name: ObjectId,
    /// The SOURCE form, kept for trees only (their deltas are found from it).
    source: Vec<u8>,
    body: Vec<u8>,
    unknown_headers: Vec<String>,
    reach: Option<Reached>,
}

fn name_one(
    inventory: &Inventory,
    table: &ObjectTable,
    at: u32,
    opts: TranslateOptions,
) -> Result<Named, ConvertError> {
    let mut source = Vec::new();
    let kind = read_cache::read(inventory, table, at, &mut source)?;
    let translation = translated(table, at, kind, &source, opts)?;
    named(inventory, table, at, kind, source, translation)
}

/// Object `at`, whose SOURCE form is `source`, named in DEST's hash from
/// its `translation`. A SHA-1 name is computed with collision detection: a
/// translation that shows an attack is refused by name.
fn named(
    inventory: &Inventory,
    table: &ObjectTable,
    at: u32,
    kind: ObjectKind,
    mut source: Vec<u8>,
    translation: Translation,
) -> Result<Named, ConvertError> {
    let Translation {
        mut body,
        notes,
        reach,
    } = translation;
    let hash = table.direction().dest();
    let name_of = |body: &[u8]| {
        object_id(hash, kind, body).map_err(|c| {
            ConvertError::from(CorruptInput::Collision {
                id: table.source_id(at),
                file: inventory.stored_in(table, at),
                detail: format!("named in {hash}, {c}"),
            })
        })
    };
    let mut name = name_of(&body)?;
    if let Some(recorded) = table.recorded_tag_name(at).filter(|&r| r != name)
        && let Some(restored) = restored_tag(table, &source)
        && name_of(&restored)? == recorded
    {
        (body, name) = (restored, recorded);
    }
    if kind != ObjectKind::Tree {
        source = Vec::new();
    }
    Ok(Named {
        at,
        kind,
        name,
        source,
        body,
        unknown_headers: notes.unknown_headers,
        reach,
    })
}

/// The objects an interrupted run wrote that a resumed run has not
/// prepared again yet. They count as unnamed, as they were when the
/// interrupted run prepared the chunks before them, so that every choice
/// that depends on what is named already is the same in both runs.
struct CarriedNotNamed(Mutex<HashSet<u32>>);

impl CarriedNotNamed {
    /// The carried objects of `chunks`, the ones this run prepares.
    fn new(table: &ObjectTable, chunks: &[Chunk<'_>]) -> Self {
        let carried = chunks
            .iter()
            .flat_map(Chunk::objects)
            .copied()
            .filter(|&at| table.is_carried(at));
        CarriedNotNamed(Mutex::new(carried.collect()))
    }

    /// Whether object `at` is named at this point of the pass.
    fn is_named(&self, table: &ObjectTable, at: u32) -> bool {
        table.dest_id(at).is_some() && !(table.is_carried(at) && self.lock().contains(&at))
    }

    /// `objects` were just prepared (named, or their names confirmed).
    fn now_named(&self, objects: &[u32]) {
        let mut unnamed = self.lock();
        if !unnamed.is_empty() {
            for at in objects {
                unnamed.remove(at);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<u32>> {
        self.0.lock().expect("no panics while holding the lock")
    }
}

/// Records the DEST name of a prepared object, unless an interrupted run
/// wrote it (the map has its name already).
fn name_unless_carried(table: &ObjectTable, n: &Named) {
    if table.is_carried(n.at) {
        debug_assert_eq!(table.dest_id(n.at), Some(n.name));
    } else {
        table.name(n.at, n.name);
    }
}

/// What storing one object of a named chunk needs to see.
struct ChunkContext<'a> {
    pass: &'a Pass<'a>,
    unnamed: &'a CarriedNotNamed,
    chunk: &'a [Named],
    /// Table index -> position in `chunk`.
    position: &'a HashMap<u32, usize>,
}

impl ChunkContext<'_> {
    /// The `k`-th object stored whole.
    fn whole(&self, k: usize) -> Stored {
        let out = &self.chunk[k].body;
        Stored::Whole {
            size: out.len() as u64,
            zlib: deflate(out, self.pass.level).into_boxed_slice(),
        }
    }

    fn delta(&self, base: u32, delta: &[u8]) -> Stored {
        Stored::Delta {
            base,
            delta_size: delta.len() as u64,
            zlib: deflate(delta, self.pass.level).into_boxed_slice(),
        }
    }

    /// The `k`-th object as the source pairing stores it, or for the window.
    fn reused(&self, k: usize) -> Result<Plan, ConvertError> {
        Ok(match self.delta_against_source_base(k)? {
            SourcePairing::Delta(base, delta) => Plan::Done {
                stored: self.delta(base, &delta),
            },
            SourcePairing::Unserved if self.pass.deltas.searching() => Plan::Search,
            SourcePairing::Whole | SourcePairing::Unserved => Plan::Done {
                stored: self.whole(k),
            },
        })
    }

    /// The delta of the `k`-th object against SOURCE's base of it, when
    /// that base lies outside the chunk (an earlier wave: a directory whose
    /// height changed; an earlier restart group) and so outside every
    /// window, but is named and its chain known. The window's tries must
    /// beat it.
    fn outside_delta(&self, k: usize) -> Result<Option<Found>, ConvertError> {
        let (pass, table) = (self.pass, self.pass.table);
        let at = self.chunk[k].at;
        let Some(base) = pass.pairs.base(at) else {
            return Ok(None);
        };
        let usable = pass.may_be_base(at, base)
            && !self.position.contains_key(&base)
            && self.unnamed.is_named(table, base);
        let opts = pass.deltas.window_options();
        let Some(base_depth) = pass.depths.get(base).filter(|&d| usable && d < opts.depth) else {
            return Ok(None);
        };
        let target = &self.chunk[k].body;
        let max_size = first_limit(target.len(), base_depth, opts);
        let delta = if self.chunk[k].kind == ObjectKind::Tree {
            read_cache::with_body(pass.inventory, table, base, |source| {
                self.tree_delta(k, source, max_size)
            })?
        } else {
            let base_out = read_translated(pass.inventory, table, base, pass.translate)?;
            encode_delta(&base_out, target, max_size)
        };
        Ok(delta.map(|delta| Found {
            base,
            depth: base_depth + 1,
            delta,
            distance: NOT_IN_WINDOW,
        }))
    }

    /// The `k`-th object as the window search left it: the delta it found
    /// (logged to the candidate log, if any), else whole.
    fn searched(&self, k: usize, searched: Searched) -> Result<Stored, ConvertError> {
        let Some(found) = &searched.found else {
            return Ok(self.whole(k));
        };
        let stored = self.delta(found.base, &found.delta);
        if let (Some(log), Stored::Delta { zlib, .. }) = (self.pass.log, &stored) {
            let at = self.chunk[k].at;
            log.record(
                self.pass.table,
                at,
                &searched,
                zlib.len(),
                self.pass.pairs.base(at),
            )?;
        }
        Ok(stored)
    }

    /// What the source pairing offers the `k`-th object of the chunk: a
    /// delta against the translated form of the object the source pack made
    /// it a delta of, when that object is already written (an earlier
    /// chunk, or earlier in this chunk) and the delta is worth it.
    fn delta_against_source_base(&self, k: usize) -> Result<SourcePairing, ConvertError> {
        let (inventory, table) = (self.pass.inventory, self.pass.table);
        let target = &self.chunk[k].body;
        if matches!(table.location(self.chunk[k].at), Location::Loose { .. }) {
            return Ok(SourcePairing::Unserved);
        }
        let Some(base_at) = self.pass.source_base(self.chunk[k].at) else {
            return Ok(SourcePairing::Whole);
        };
        if !self.unnamed.is_named(table, base_at) {
            // Not named yet: the schedule let this object go before its
            // base, to break a ring of references and delta bases (git
            // stores an older commit as a delta of its child). The window
            // search finds it a base among what is named.
            return Ok(SourcePairing::Unserved);
        }
        // As pack-objects: a delta must save at least half of the object.
        let max_size = target.len() / 2;
        let tree = self.chunk[k].kind == ObjectKind::Tree;
        let delta = match self.position.get(&base_at) {
            Some(&j) if j < k && tree => self.tree_delta(k, &self.chunk[j].source, max_size),
            Some(&j) if j < k => encode_delta(&self.chunk[j].body, target, max_size),
            // Later in this chunk: not named when this object was.
            Some(_) => return Ok(SourcePairing::Unserved),
            None if tree => {
                // The base's SHA-1 form, usually from the cache (the target
                // was just rebuilt on it): no translation, no byte index.
                read_cache::with_body(inventory, table, base_at, |base| {
                    self.tree_delta(k, base, max_size)
                })?
            }
            None => {
                let base_out = read_translated(inventory, table, base_at, self.pass.translate)?;
                encode_delta(&base_out, target, max_size)
            }
        };
        Ok(match delta {
            Some(delta) => SourcePairing::Delta(base_at, delta),
            None => SourcePairing::Whole,
        })
    }

    /// The delta of tree `k` of the chunk against the translated form of
    /// the tree whose SHA-1 form is `base`, found by lining up the entries
    /// of the two SHA-1 trees (`tree_delta`).
    fn tree_delta(&self, k: usize, base: &[u8], max_size: usize) -> Option<Vec<u8>> {
        let target = &self.chunk[k];
        let direction = self.pass.table.direction();
        let (from, to) = (direction.source().raw_len(), direction.dest().raw_len());
        tree_delta(base, &target.source, &target.body, from, to, max_size)
    }
}

/// Object `at` of the source, a commit or tag (a delta base), translated
/// to its SHA-256 form.
fn read_translated(
    inventory: &Inventory,
    table: &ObjectTable,
    at: u32,
    opts: TranslateOptions,
) -> Result<Vec<u8>, ConvertError> {
    let mut body = Vec::new();
    let kind = read_cache::read(inventory, table, at, &mut body)?;
    Ok(translated(table, at, kind, &body, opts)?.body)
}

/// The other translation of the SOURCE tag `source`, when it has one: the
/// tag whose in-body signature had no final LF, which SOURCE's own map may
/// record as the original (`source_map.rs`).
fn restored_tag(table: &ObjectTable, source: &[u8]) -> Option<Vec<u8>> {
    let direction = table.direction();
    let mapper = |id: &ObjectId| table.map_source(id);
    let mut out = Vec::new();
    let restored = translate_tag_with_unterminated_signature(
        source,
        direction.source(),
        direction.dest(),
        &mapper,
        &mut out,
    );
    // The plain translation of the same tag succeeded, and this one maps
    // the same ids: an error here is none to report.
    restored.unwrap_or(false).then_some(out)
}

/// An object's DEST form, what its translation noted, and what it
/// reaches.
struct Translation {
    body: Vec<u8>,
    notes: crate::translate::TranslateNotes,
    reach: Option<Reached>,
}

/// The DEST form of source object `at`, whose bytes are `body`.
fn translated(
    table: &ObjectTable,
    at: u32,
    kind: ObjectKind,
    body: &[u8],
    opts: TranslateOptions,
) -> Result<Translation, ConvertError> {
    let mut out = Vec::with_capacity(body.len() + body.len() / 2);
    let refused = |source| CorruptInput::Translate {
        id: table.source_id(at),
        kind,
        source,
    };
    if kind == ObjectKind::Tree {
        let reach = translate_tree_reaching(table, body, &mut out).map_err(refused)?;
        return Ok(Translation {
            body: out,
            notes: Default::default(),
            reach,
        });
    }
    // Only the commits the plan marked may keep a mergetag verbatim: any
    // other unmapped mergetag is an error, not a silent copy.
    let opts = TranslateOptions {
        verbatim_mergetags: table.keeps_mergetags(at),
        ..opts
    };
    let direction = table.direction();
    let notes = table
        .with_recent(|recent| {
            let recent = std::cell::RefCell::new(recent);
            let mapper = |id: &ObjectId| recent.borrow_mut().map_source(id);
            translate_object(
                kind,
                body,
                direction.source(),
                direction.dest(),
                &mapper,
                opts,
                &mut out,
            )
        })
        .map_err(refused)?;
    Ok(Translation {
        reach: Reached::of(table, kind, body),
        body: out,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(chunks: &[Chunk<'_>]) -> Vec<(bool, Vec<u32>)> {
        chunks
            .iter()
            .map(|c| match c {
                Chunk::OfWave(objects) => (false, objects.to_vec()),
                Chunk::OfSmallWaves(objects) => (true, objects.clone()),
            })
            .collect()
    }

    #[test]
    fn small_waves_merge_in_order_and_big_ones_split() {
        let big: Vec<u32> = (100..100 + CHUNK as u32 + 5).collect();
        let waves = vec![vec![1], vec![2, 3], big.clone(), vec![4], vec![5]];
        let chunks = chunks_of(&waves, CHUNK, |_| 1);
        assert_eq!(
            shape(&chunks),
            vec![
                (true, vec![1, 2, 3]),
                (false, big[..CHUNK].to_vec()),
                (false, big[CHUNK..].to_vec()),
                (true, vec![4, 5]),
            ]
        );
        // A long chain of one-object waves (a linear history) fills chunks.
        let chain: Vec<Vec<u32>> = (0..CHUNK as u32 * 2 + 1).map(|i| vec![i]).collect();
        let lens: Vec<usize> = chunks_of(&chain, CHUNK, |_| 1)
            .iter()
            .map(Chunk::len)
            .collect();
        assert_eq!(lens, vec![CHUNK, CHUNK, 1]);
        // Large objects: the byte budget cuts first.
        let heavy: Vec<u32> = (100..108).collect();
        let per_object = CHUNK_BYTES / 3;
        let waves = vec![(0..70).collect::<Vec<u32>>(), heavy];
        let lens: Vec<usize> = chunks_of(&waves, CHUNK, |_| per_object)
            .iter()
            .map(Chunk::len)
            .collect();
        assert_eq!(
            lens,
            vec![3; 23].into_iter().chain([1, 8]).collect::<Vec<_>>()
        );
    }
}
