//! A stack of tables (`reftable/tables.list`, oldest first) merged into
//! what git sees: for each ref name and each log key, the record of the
//! newest table that has one; deletions (tombstones) hide older records
//! and are then dropped.
//!
//! Nothing is written, not even a lock: `tables.list` is read, then each
//! table it names. A writer replaces tables by writing the new ones,
//! renaming a new `tables.list` into place and deleting the old ones, so a
//! table that vanished between the two reads means the stack changed: the
//! list is read again (as git's readers do), a few times at most.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::Path;

use super::records::{LogRecord, RefRecord, RefValue};
use super::table_read::parse_table;
use crate::hash::HashKind;
use crate::refs::error::RefsError;

/// The stack's list of tables.
pub const TABLES_LIST: &str = "tables.list";

/// How often a stack that changed while being read is read again.
const ATTEMPTS: usize = 5;

/// What the merged stack holds: refs by name, logs by key (ref name, then
/// newest first), no deletions.
#[derive(Debug, Default)]
pub struct Merged {
    pub refs: Vec<RefRecord>,
    pub logs: Vec<LogRecord>,
}

/// Reads and merges the stack in `dir` (a `reftable/` directory), whose
/// ids are of kind `hash`. A missing `tables.list` is an empty stack.
pub fn read_stack(dir: &Path, hash: HashKind) -> Result<Merged, RefsError> {
    let list_path = dir.join(TABLES_LIST);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let names = read_list(&list_path)?;
        match read_tables(dir, &names, hash) {
            Ok(merged) => return Ok(merged),
            Err(Vanished(path)) => {
                if attempt >= ATTEMPTS || read_list(&list_path)? == names {
                    return Err(RefsError::Reftable {
                        path,
                        reason: format!("listed in {} but missing", list_path.display()),
                    });
                }
            }
            Err(Failed(e)) => return Err(e),
        }
    }
}

enum ReadError {
    /// A listed table does not exist (any more).
    Vanished(std::path::PathBuf),
    Failed(RefsError),
}
use ReadError::{Failed, Vanished};

/// The table names of `tables.list`, oldest first.
pub fn read_list(path: &Path) -> Result<Vec<String>, RefsError> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(RefsError::io(path, e)),
    };
    let bad = |reason: String| RefsError::Reftable {
        path: path.to_path_buf(),
        reason,
    };
    let text = String::from_utf8(text).map_err(|_| bad("not UTF-8".into()))?;
    text.lines()
        .map(|name| {
            let plain = !name.is_empty() && !name.contains('/') && !name.starts_with('.');
            if plain {
                Ok(name.to_string())
            } else {
                Err(bad(format!("{name:?} is not a table name")))
            }
        })
        .collect()
}

fn read_tables(dir: &Path, names: &[String], hash: HashKind) -> Result<Merged, ReadError> {
    let mut refs: BTreeMap<String, RefRecord> = BTreeMap::new();
    let mut logs: BTreeMap<Vec<u8>, LogRecord> = BTreeMap::new();
    for name in names {
        let path = dir.join(name);
        let file = match std::fs::read(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == ErrorKind::NotFound => return Err(Vanished(path)),
            Err(e) => return Err(Failed(RefsError::io(&path, e))),
        };
        let table = parse_table(&file, hash)
            .map_err(|reason| Failed(RefsError::Reftable { path, reason }))?;
        // Oldest first: a later table's record replaces an earlier one.
        for record in table.refs {
            refs.insert(record.name.clone(), record);
        }
        for record in table.logs {
            logs.insert(record.key(), record);
        }
    }
    Ok(Merged {
        refs: refs
            .into_values()
            .filter(|r| r.value != RefValue::Deletion)
            .collect(),
        logs: logs.into_values().filter(|l| l.update.is_some()).collect(),
    })
}
