//! Picking up an existing DEST: refusing one that belongs to another
//! conversion, loading what the map already holds, and removing what an
//! interrupted run left half-done.
//!
//! The map database is the checkpoint (see `journal.rs`). Its `meta` table
//! names the source, the options that change the output, the pool DEST
//! shares with (if any), the ref selection (`selection.rs`) and the
//! journal format; a later run continues only when all of them match (a
//! later run that names no pool or selection keeps the one recorded; a
//! selection may widen).

pub mod adopted;
pub mod carried;
pub mod own_history;
pub mod selection;

use std::path::Path;

use crate::convert::dest::leftovers::remove_for_force;
use crate::convert::dest::{Dest, is_fresh};
use crate::convert::error::ConvertError;
use crate::convert::error::DestState;
use crate::convert::options::ConvertOptions;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::Direction;
use crate::hash::ObjectId;
use crate::idmap::{DIRECTION, IdMap, SHARED_WITH};
use crate::object::ObjectKind;
use crate::refs::RefStorage;
use crate::repo::SourceRepo;
use crate::repo::dest_layout;

/// The layout of the journal and map this version reads and writes. Bump
/// it when a run could no longer continue another version's work.
pub const JOURNAL_FORMAT: &str = "1";

/// An existing DEST, locked, with its map open.
pub struct Existing {
    pub dest: Dest,
    pub map: IdMap,
    /// The ref backend DEST keeps (see [`dest_ref_format`]).
    pub ref_format: RefStorage,
}

/// Opens DEST when it holds earlier work to continue. `None`: DEST does not
/// exist or is empty (or `--force` removed it), so the run starts afresh.
pub fn open_existing(
    opts: &ConvertOptions,
    source: &SourceRepo,
) -> Result<Option<Existing>, ConvertError> {
    let path = &opts.dest;
    if opts.force {
        remove_for_force(path)?;
    }
    if !path.exists() || is_fresh(path)? {
        return Ok(None);
    }
    if !dest_layout::rehash_dir(path).is_dir() {
        return Err(DestState::Exists {
            path: path.to_path_buf(),
            ours: false,
        }
        .into());
    }
    let dest = Dest::open(path)?;
    let map = IdMap::open_rw(&dest_layout::map_db(&dest.path))?;
    let mismatch = |reason: String| DestState::Mismatch {
        path: dest.path.clone(),
        reason,
    };
    let Some(format) = map.meta("journal_format")? else {
        if map.count()? == 0 && map.segment_packs()?.is_empty() {
            // Interrupted while being created: nothing to keep.
            write_meta(&map, opts, source)?;
            let ref_format = first_ref_format(opts, source);
            return Ok(Some(Existing {
                dest,
                map,
                ref_format,
            }));
        }
        return Err(mismatch(
            "was made by an earlier git-rehash that cannot be resumed or updated".to_string(),
        )
        .into());
    };
    if format != JOURNAL_FORMAT {
        return Err(mismatch(format!(
            "was made by an incompatible git-rehash (journal format {format}, this version uses {JOURNAL_FORMAT})"
        )).into());
    }
    let recorded_source = map.meta("source")?.unwrap_or_default();
    let this_source = source.git_dir.display().to_string();
    if recorded_source != this_source {
        return Err(mismatch(format!(
            "was converted from {recorded_source}, not from {this_source}"
        ))
        .into());
    }
    let recorded = map.direction()?;
    let this = Direction::from_source(source.object_format);
    if recorded != this {
        return Err(mismatch(format!(
            "was converted from {}, and SOURCE now uses {}",
            recorded.source(),
            this.source()
        ))
        .into());
    }
    for (key, value) in output_options(opts) {
        let recorded = map.meta(key)?.unwrap_or_default();
        if recorded != value {
            return Err(mismatch(format!(
                "was converted with {key} = {recorded}, this run asks for {value}"
            ))
            .into());
        }
    }
    if let Some(asked) = &opts.shared_with {
        match map.shared_with()? {
            Some(recorded) if recorded == *asked => {}
            Some(recorded) => {
                return Err(mismatch(format!(
                    "shares objects with {}, not with {}",
                    recorded.display(),
                    asked.display()
                ))
                .into());
            }
            None => {
                return Err(mismatch(format!(
                    "is self-contained; this run asks to share objects with {}",
                    asked.display()
                ))
                .into());
            }
        }
    }
    let ref_format = dest_ref_format(&dest.path, &map)?;
    if let Some(asked) = opts.ref_format.filter(|&asked| asked != ref_format) {
        return Err(mismatch(format!(
            "keeps its refs as {}, this run asks for {} (later runs keep DEST's ref format)",
            ref_format.name(),
            asked.name(),
        ))
        .into());
    }
    map.set_meta(REF_FORMAT, ref_format.name())?;
    own_history::refuse_own_history(&dest.path, &map)?;
    Ok(Some(Existing {
        dest,
        map,
        ref_format,
    }))
}

/// The meta key of DEST's ref backend.
const REF_FORMAT: &str = "ref_format";

/// The ref backend of a first run: `--ref-format`, else SOURCE's.
pub fn first_ref_format(opts: &ConvertOptions, source: &SourceRepo) -> RefStorage {
    opts.ref_format.unwrap_or(source.ref_storage)
}

/// The ref backend an existing DEST keeps: once DEST is a repository (its
/// `config` written), the one it has on disk, which follows a `git refs
/// migrate` run in DEST; before, the one its first run chose (a DEST made
/// before the choice existed has files).
fn dest_ref_format(dest: &Path, map: &IdMap) -> Result<RefStorage, ConvertError> {
    if dest_layout::config(dest).is_file() {
        return Ok(RefStorage::of(dest));
    }
    let recorded = map.meta(REF_FORMAT)?;
    Ok(recorded
        .as_deref()
        .and_then(RefStorage::from_name)
        .unwrap_or(RefStorage::Files))
}

/// The options that change what a conversion writes, as recorded in `meta`.
fn output_options(opts: &ConvertOptions) -> [(&'static str, String); 2] {
    [
        ("strict_headers", opts.strict_headers.to_string()),
        ("compression", opts.compression.to_string()),
    ]
}

/// Records what DEST is made of; `journal_format` last, so a DEST whose
/// meta is incomplete reads as "being created".
pub fn write_meta(
    map: &IdMap,
    opts: &ConvertOptions,
    source: &SourceRepo,
) -> Result<(), ConvertError> {
    map.set_meta("source", &source.git_dir.display().to_string())?;
    map.set_meta(
        DIRECTION,
        Direction::from_source(source.object_format).name(),
    )?;
    map.set_meta("tool", concat!("git-rehash ", env!("CARGO_PKG_VERSION")))?;
    for (key, value) in output_options(opts) {
        map.set_meta(key, &value)?;
    }
    let pool = opts.shared_with.as_deref().unwrap_or(Path::new(""));
    map.set_meta(SHARED_WITH, &pool.display().to_string())?;
    map.set_meta(REF_FORMAT, first_ref_format(opts, source).name())?;
    map.set_meta("state", "converting")?;
    map.set_meta("journal_format", JOURNAL_FORMAT)?;
    Ok(())
}

/// Marks every object that has a map row as converted. Rows of objects
/// SOURCE no longer has are kept in the map (DEST still stores them) and
/// ignored here. Returns the number of rows read.
pub fn load_map(map: &IdMap, table: &mut ObjectTable) -> Result<u64, ConvertError> {
    for_each_row(map, table, |table, i, kind, dest| {
        table.set_mapped(i, kind, dest)
    })
}

/// Calls `mark` with the table index, type and DEST name of every row of
/// `map` whose object the table holds (by its SOURCE name, the column of
/// SOURCE's hash). Returns the number of rows read.
pub fn for_each_row(
    map: &IdMap,
    table: &mut ObjectTable,
    mut mark: impl FnMut(&mut ObjectTable, u32, ObjectKind, ObjectId),
) -> Result<u64, ConvertError> {
    let mut rows = 0u64;
    let direction = table.direction();
    map.for_each(|row| {
        rows += 1;
        let (source, dest) = direction.split(row.sha1, row.sha256);
        if let Some(i) = table.find(&source) {
            mark(table, i, row.kind, dest);
        }
        Ok(())
    })
    .map_err(|e| match e {
        crate::idmap::ForEachError::Map(e) => ConvertError::Map(e),
        crate::idmap::ForEachError::Io(e) => ConvertError::io(map.path(), e),
    })?;
    Ok(rows)
}
