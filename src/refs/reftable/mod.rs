//! The reftable backend (git 2.45+, `git init --ref-format=reftable`):
//! reading a repository's stack of tables, and writing a repository's
//! refs as a stack of one table. git's `Documentation/technical/reftable.txt`
//! describes the format.
//!
//! No crate reads or writes the format as a library of its own: gitoxide's
//! `gix-ref` has no reftable support, and the one reader on crates.io is
//! part of a whole git implementation. So the format is here, one job a
//! file, bottom up: `varint` (the integers), `input` (a record's
//! fields), `layout` (header and footer),
//! `records` (ref and log records), `block_read` / `block_write` (blocks,
//! prefix compression, restarts, log deflation), `table_read` /
//! `table_write` (a whole `.ref` file), `stack_read` / `stack_write`
//! (`tables.list`, newer tables shadowing older ones), `log_text` (a log
//! record as a reflog line), `snapshot_read` / `snapshot_write` (the
//! refs layer's snapshot to and from records).
//!
//! Reading never writes, not even a lock. Tables of both versions are
//! read (1: SHA-1; 2: the hash named in the header); tables are written as
//! git writes them for the hash (SHA-256: version 2).

mod block_read;
mod block_write;
mod input;
mod layout;
mod log_text;
mod records;
mod snapshot_read;
mod snapshot_write;
mod stack_read;
mod stack_write;
mod table_read;
mod table_write;
mod varint;

use std::path::{Path, PathBuf};

pub(crate) use snapshot_read::{FILE_PSEUDO_REFS, read_view};
pub(crate) use stack_write::{HEAD_STUB, REFS_HEADS_STUB, refs_heads_stub};

use super::{PseudoRef, SourceRefs};

use crate::hash::{HashKind, ObjectId};
use crate::refs::error::RefsError;
use crate::refs::storage::REFTABLE_DIR;
use records::{RefRecord, RefValue};
use table_write::{TableInput, write_table};

/// What [`write_stack`] wrote.
pub(crate) struct WrittenStack {
    /// The one table of the stack.
    pub table: PathBuf,
    /// Pseudo-refs git keeps as files, for the caller to write.
    pub files: Vec<PseudoRef>,
}

/// Writes `refs` (ids of kind `refs.hash`) as the whole stack of
/// `git_dir`, replacing whatever stack was there.
pub(crate) fn write_stack(git_dir: &Path, refs: &SourceRefs) -> Result<WrittenStack, RefsError> {
    let records = snapshot_write::table_records(refs)?;
    let table_dir = git_dir.join(REFTABLE_DIR);
    let bytes = write_table(&TableInput {
        hash: refs.hash,
        min_update_index: 1,
        max_update_index: records.max_update_index,
        refs: &records.refs,
        logs: &records.logs,
    })
    .map_err(|reason| RefsError::Reftable {
        path: table_dir.clone(),
        reason,
    })?;
    let table = stack_write::replace_stack(git_dir, &bytes, 1, records.max_update_index)?;
    Ok(WrittenStack {
        table,
        files: records.files,
    })
}

/// Sets each ref of `updates` (ids of kind `hash`) in the stack of
/// `git_dir`, as one more table on top of it; returns that table.
pub(crate) fn push_ref_updates(
    git_dir: &Path,
    hash: HashKind,
    updates: &[(String, ObjectId)],
) -> Result<PathBuf, RefsError> {
    let mut sorted: Vec<_> = updates.to_vec();
    sorted.sort();
    stack_write::push_table(git_dir, |update_index| {
        let refs: Vec<RefRecord> = sorted
            .into_iter()
            .map(|(name, id)| RefRecord {
                name,
                update_index,
                value: RefValue::Direct(id),
            })
            .collect();
        write_table(&TableInput {
            hash,
            min_update_index: update_index,
            max_update_index: update_index,
            refs: &refs,
            logs: &[],
        })
        .map_err(|reason| RefsError::Reftable {
            path: git_dir.join(REFTABLE_DIR),
            reason,
        })
    })
}

#[cfg(test)]
mod tests;
