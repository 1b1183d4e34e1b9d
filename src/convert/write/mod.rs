//! The write phase: the blob pass and the map pass run side by side, each
//! appending to a sequence of segments of its own (`segments/sequence.rs`),
//! both committed through one journal (`segments/commit_order.rs`), which keeps
//! the map closed under references.

pub mod blob_pass;
pub mod candidate_log;
pub mod delta_policy;
pub mod map_pass;
pub mod output_depths;
pub mod pass;
pub mod piece_search;
pub mod search_record;
pub mod search_tail;
pub mod tree_translation;

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::convert::context::Run;
use crate::convert::error::ConvertError;
use crate::convert::plan::source_pairs::SourcePairs;
use crate::convert::reach_record::ReachRecorder;
use crate::convert::segments::commit_order::Journal;
use crate::convert::segments::sequence::SegmentWriter;
use crate::convert::source_objects::table::ObjectTable;
use crate::convert::write::candidate_log::CandidateLog;
use crate::convert::write::delta_policy::DeltaOptions;
use crate::convert::write::map_pass::{MapOutcome, map_pass, search_order};
use crate::convert::write::output_depths::OutputDepths;
use crate::convert::write::pass::Pass;
use crate::idmap::{IdMap, RunId};
use crate::pack::PackLayout;
use crate::pack::Tries;
use crate::repo::dest_layout;

/// What the write phase did.
pub struct Written {
    /// Blobs copied as their source's compressed bytes.
    pub blobs_copied: u64,
    pub mapped: MapOutcome,
    /// Segments written.
    pub packs: u32,
    /// What the objects the map pass translated reach (`convert/reach_record.rs`).
    pub reach_records: PathBuf,
}

/// Writes every object of `table` without a map row into segments of
/// `dest`, as a new run of `map` (blobs, and `waves` of trees, commits
/// and tags); returns the map back with the run. Objects an interrupted
/// run wrote (carried) are planned with the rest but not written again.
pub fn write_objects(
    run: &Run<'_>,
    table: &ObjectTable,
    waves: Vec<Vec<u32>>,
    pairs: &SourcePairs,
    dest: &Path,
    mut map: IdMap,
) -> Result<(Written, IdMap, RunId), ConvertError> {
    let (opts, inventory, hooks, progress) = (run.opts, run.inventory, run.stops, run.progress);
    let deltas = DeltaOptions {
        window: opts.window,
        depth: opts.depth,
        reuse: opts.reuses_pairing(),
        tries: match opts.try_every_base {
            true => Tries::Every,
            false => DeltaOptions::RANKED,
        },
    };
    let blobs = blob_pass::blob_order(table, deltas);
    let waves = search_order(table, waves, deltas);
    // What each sequence appends, in order: the passes plan what an
    // interrupted run wrote too, but do not write it again.
    let new = |at: &&u32| !table.is_carried(**at);
    let blob_writes: Vec<u32> = blobs.iter().filter(new).copied().collect();
    let map_writes: Vec<u32> = waves.iter().flatten().filter(new).copied().collect();
    let (new_blobs, new_mapped) = (blob_writes.len() as u64, map_writes.len() as u64);
    // Objects of a finished conversion are in a pack that is served as it
    // is; the segments of an unfinished one are folded with this run's.
    let bases_from_earlier_runs = map.folded_packs()?.is_empty();
    let depths = OutputDepths::new(table.len());
    if deltas.searching() && table.indices().any(|at| table.is_carried(at)) {
        depths.set_written(dest, &map, table)?;
    }
    let map_run = map.begin_run(table.len() as u64, new_blobs + new_mapped)?;
    let journal = Journal::new(map, table, map_run, hooks, &[new_blobs, new_mapped])?;
    progress.start("writing objects", Some(new_blobs + new_mapped));
    // Where each source pack's entries start, for both passes.
    let layouts = inventory
        .packs
        .par_iter()
        .map(PackLayout::new)
        .collect::<Result<Vec<_>, _>>()?;
    let log = opts
        .candidate_log
        .as_deref()
        .map(CandidateLog::create)
        .transpose()?;
    let pass = Pass {
        dest,
        inventory,
        layouts: &layouts,
        table,
        translate: run.translate,
        level: opts.compression,
        deltas,
        pairs,
        bases_from_earlier_runs,
        progress,
        log: log.as_ref(),
        depths: &depths,
        chunk_objects: hooks.chunk_objects,
    };
    let pack_dir = dest_layout::pack_dir(dest);
    let mut reach = ReachRecorder::open(&dest_layout::reach_records(dest), table)?;
    // The scope holds the threads that finish segments in the background.
    let written = std::thread::scope(|scope| {
        let writer = |sequence, order| {
            SegmentWriter::new(pack_dir.clone(), scope, &journal, sequence, order)
        };
        let (mut blob_writer, mut map_writer) = (writer(0, &blob_writes), writer(1, &map_writes));
        let (blobs, mapped) = rayon::join(
            || {
                write_sequence(&mut blob_writer, |pack| {
                    blob_pass::blob_pass(&pass, &blobs, pack)
                })
            },
            || {
                write_sequence(&mut map_writer, |pack| {
                    map_pass(&pass, &waves, pack, &mut reach)
                })
            },
        );
        // The last segments' finishes (fsync, idx, commit) ran on; a
        // failed one stopped the passes, so its error comes first.
        let finished = first_failure(blob_writer.finish(), map_writer.finish());
        let passes = first_failure(blobs, mapped);
        let ((blob_packs, map_packs), (blobs_copied, mapped)) = first_failure(finished, passes)?;
        Ok::<_, ConvertError>(Written {
            blobs_copied,
            mapped,
            packs: blob_packs.packs + map_packs.packs,
            reach_records: PathBuf::new(),
        })
    })?;
    let written = Written {
        reach_records: reach.finish()?,
        ..written
    };
    if let Some(log) = log {
        log.finish()?;
    }
    // Every segment is durable: no run restarts a chunk of these passes.
    search_record::remove(&dest_layout::search_record(dest))?;
    progress.finish();
    Ok((written, journal.into_map(), map_run))
}

/// Runs `work`, which appends objects through `writer`; when it fails,
/// the other sequences are told to stop at their next checkpoint. The
/// last segment's finish may still run: [`SegmentWriter::finish`] waits
/// for it (once the other sequences need this thread no more).
fn write_sequence<R>(
    writer: &mut SegmentWriter<'_, '_>,
    work: impl FnOnce(&mut SegmentWriter<'_, '_>) -> Result<R, ConvertError>,
) -> Result<R, ConvertError> {
    let done = work(writer);
    if done.is_err() {
        writer.abandon();
    }
    done
}

/// The error to report when sequences written side by side both ended:
/// a failure over the stop it caused in the other (reported as an
/// interruption).
fn first_failure<A, B>(
    a: Result<A, ConvertError>,
    b: Result<B, ConvertError>,
) -> Result<(A, B), ConvertError> {
    match (a, b) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (Err(ConvertError::Interrupted(_)), Err(e)) | (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(path: &str) -> ConvertError {
        ConvertError::io(
            std::path::Path::new(path),
            std::io::Error::other("no space"),
        )
    }

    #[test]
    fn the_failure_is_reported_over_the_stop_it_caused() {
        let stopped = || Err::<(), _>(ConvertError::from(crate::pipeline::Interrupted));
        let real = |p| Err::<(), _>(failed(p));
        let message = |r: Result<((), ()), ConvertError>| r.unwrap_err().to_string();
        assert!(message(first_failure(stopped(), real("/b"))).contains("/b"));
        assert!(message(first_failure(real("/a"), stopped())).contains("/a"));
        assert!(message(first_failure(real("/a"), real("/b"))).contains("/a"));
        assert!(matches!(
            first_failure(stopped(), stopped()),
            Err(ConvertError::Interrupted(_))
        ));
        assert!(first_failure(Ok::<_, ConvertError>(1), Ok::<_, ConvertError>(2)).is_ok());
    }
}
