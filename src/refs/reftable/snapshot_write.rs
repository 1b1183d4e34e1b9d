//! A snapshot (already translated) as the records of one table: what
//! git's reftable backend would hold for the same refs.
//!
//! `HEAD`, every ref as git resolves it (a loose ref hides a packed one)
//! with the peeled value `packed-refs` gives it, and the pseudo-refs git
//! stores in the table (all but `FETCH_HEAD` and `MERGE_HEAD`, which stay
//! files and are returned as such). Each reflog entry gets its own update
//! index, 1 for the oldest entry of each ref, counting up (the reftable
//! format's rule for imported reflogs: newer entries, higher indexes);
//! every ref record gets the highest, so a later git transaction, which
//! takes the next index, is newer than all of them. An empty reflog is
//! kept as git keeps one: a record whose two ids are null.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::log_text::update_of;
use super::records::{LogRecord, LogUpdate, RefRecord, RefValue};
use super::snapshot_read::FILE_PSEUDO_REFS;
use crate::refs::error::RefsError;
use crate::refs::pseudo::{PseudoContent, PseudoRef};
use crate::refs::{RefTarget, SourceRefs};

/// The records of the table, and what stays a file.
pub struct TableRecords {
    /// Sorted by name.
    pub refs: Vec<RefRecord>,
    /// Sorted by key.
    pub logs: Vec<LogRecord>,
    /// Update indexes run from 1 to this.
    pub max_update_index: u64,
    /// Pseudo-refs git keeps as files.
    pub files: Vec<PseudoRef>,
}

/// The table records of `refs`.
pub fn table_records(refs: &SourceRefs) -> Result<TableRecords, RefsError> {
    let longest = refs.reflogs.iter().map(|l| l.entries.len()).max();
    let max_update_index = longest.unwrap_or(0).max(1) as u64;

    let mut values: BTreeMap<String, RefValue> = BTreeMap::new();
    values.insert("HEAD".into(), value_of(&refs.head, None));
    for (name, target, peeled) in refs.effective_refs_peeled() {
        values.insert(name, value_of(&target, peeled));
    }
    let mut files = Vec::new();
    for pseudo in &refs.pseudo {
        let value = match &pseudo.content {
            _ if FILE_PSEUDO_REFS.contains(&pseudo.name.as_str()) => None,
            PseudoContent::Symbolic(to) => Some(RefValue::Symbolic(to.clone())),
            PseudoContent::Lines(lines) if lines.len() == 1 => Some(RefValue::Direct(lines[0].id)),
            PseudoContent::Lines(_) => None,
        };
        match value {
            Some(value) => {
                values.insert(pseudo.name.clone(), value);
            }
            None => files.push(pseudo.clone()),
        }
    }
    let refs_out = values
        .into_iter()
        .map(|(name, value)| RefRecord {
            name,
            update_index: max_update_index,
            value,
        })
        .collect();

    let mut logs = Vec::new();
    for log in &refs.reflogs {
        if log.entries.is_empty() {
            let null = refs.hash.null_id();
            logs.push(LogRecord {
                refname: log.name.clone(),
                update_index: 1,
                update: Some(LogUpdate {
                    old: null,
                    new: null,
                    name: Vec::new(),
                    email: Vec::new(),
                    time: 0,
                    tz: 0,
                    message: Vec::new(),
                }),
            });
        }
        for (n, entry) in log.entries.iter().enumerate() {
            let update = update_of(entry.old, entry.new, &entry.tail).ok_or_else(|| {
                RefsError::Malformed {
                    path: PathBuf::from("logs").join(&log.name),
                    line: n + 1,
                    reason: "reflog entry: no `<name> <<email>> <time> <zone>` to store in a \
                             reftable"
                        .into(),
                }
            })?;
            logs.push(LogRecord {
                refname: log.name.clone(),
                update_index: n as u64 + 1,
                update: Some(update),
            });
        }
    }
    logs.sort_by_cached_key(LogRecord::key);
    Ok(TableRecords {
        refs: refs_out,
        logs,
        max_update_index,
        files,
    })
}

fn value_of(target: &RefTarget, peeled: Option<crate::hash::ObjectId>) -> RefValue {
    match (target, peeled) {
        (RefTarget::Direct(value), Some(peeled)) => RefValue::Peeled {
            value: *value,
            peeled,
        },
        (RefTarget::Direct(id), None) => RefValue::Direct(*id),
        (RefTarget::Symbolic(to), _) => RefValue::Symbolic(to.clone()),
    }
}
