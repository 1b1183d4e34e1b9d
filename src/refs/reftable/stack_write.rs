//! Replacing a repository's whole stack by one table, and the files that
//! tell git (and older gits) a repository keeps its refs in reftables.
//!
//! The new table is written durably under its final name first, then
//! `tables.list` is replaced by one naming only it (a rename: a reader
//! sees the old stack or the new one), and only then are the old tables
//! deleted. A run killed in between leaves the old stack readable, or the
//! new one with unlisted tables beside it, which the next run deletes.
//!
//! Single refs set later in the same run (`--rekey-notes`) are added as
//! git adds a transaction: one more table on top of the stack, with the
//! next update index.
//!
//! The table is named as git names tables (`0x<min>-0x<max>-<8 hex>.ref`),
//! the suffix being the CRC-32 of its bytes rather than random, so the
//! same refs give the same file.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::layout::Footer;
use super::stack_read::{TABLES_LIST, read_list};
use crate::durable;
use crate::refs::error::RefsError;
use crate::refs::storage::REFTABLE_DIR;

/// `HEAD` of a reftable repository: the real one is in the table; this one
/// only makes the directory look like a repository to git.
pub const HEAD_STUB: &[u8] = b"ref: refs/heads/.invalid\n";

/// `refs/heads` of a reftable repository: a file, so a git without
/// reftable support finds no branches rather than wrong ones.
pub const REFS_HEADS_STUB: &[u8] = b"this repository uses the reftable format\n";

/// Makes `table` (update indexes `min..=max`) the only table of the stack
/// of `git_dir`; returns its path.
pub fn replace_stack(
    git_dir: &Path,
    table: &[u8],
    min: u64,
    max: u64,
) -> Result<PathBuf, RefsError> {
    let dir = git_dir.join(REFTABLE_DIR);
    fs::create_dir_all(&dir).map_err(|e| RefsError::io(&dir, e))?;
    let (name, path) = write_new_table(&dir, table, min, max)?;
    write_list(&dir, std::slice::from_ref(&name))?;
    for entry in fs::read_dir(&dir).map_err(|e| RefsError::io(&dir, e))? {
        let entry = entry.map_err(|e| RefsError::io(&dir, e))?;
        let file_name = entry.file_name();
        if file_name != *name && file_name != TABLES_LIST {
            let old = entry.path();
            fs::remove_file(&old).map_err(|e| RefsError::io(&old, e))?;
        }
    }
    Ok(path)
}

/// Adds a table of `table_for(update_index)`'s bytes on top of the stack
/// of `git_dir`, `update_index` being the one after the newest table's.
pub fn push_table(
    git_dir: &Path,
    table_for: impl FnOnce(u64) -> Result<Vec<u8>, RefsError>,
) -> Result<PathBuf, RefsError> {
    let dir = git_dir.join(REFTABLE_DIR);
    let mut names = read_list(&dir.join(TABLES_LIST))?;
    let newest = match names.last() {
        Some(name) => {
            let path = dir.join(name);
            let file = fs::read(&path).map_err(|e| RefsError::io(&path, e))?;
            Footer::parse(&file)
                .map_err(|reason| RefsError::Reftable { path, reason })?
                .max_update_index
        }
        None => 0,
    };
    let update_index = newest + 1;
    let table = table_for(update_index)?;
    let (name, path) = write_new_table(&dir, &table, update_index, update_index)?;
    names.push(name);
    write_list(&dir, &names)?;
    Ok(path)
}

/// Writes `table` durably into `dir` under git's kind of name.
fn write_new_table(
    dir: &Path,
    table: &[u8],
    min: u64,
    max: u64,
) -> Result<(String, PathBuf), RefsError> {
    let name = format!(
        "0x{min:012x}-0x{max:012x}-{:08x}.ref",
        crc32fast::hash(table)
    );
    let path = dir.join(&name);
    durable::write_file(&path, table).map_err(|e| RefsError::io(e.path, e.source))?;
    Ok((name, path))
}

/// Replaces `tables.list` of `dir` by `names`, in one rename.
fn write_list(dir: &Path, names: &[String]) -> Result<(), RefsError> {
    let text: String = names.iter().map(|name| format!("{name}\n")).collect();
    durable::write_file(&dir.join(TABLES_LIST), text.as_bytes())
        .map_err(|e| RefsError::io(e.path, e.source))
}

/// Where the `refs/heads` stub goes, once the empty directories a new
/// repository starts with (`refs/heads`, `refs/tags`) are out of its way.
pub fn refs_heads_stub(git_dir: &Path) -> Result<PathBuf, RefsError> {
    for dir in ["refs/tags", "refs/heads"] {
        let path = git_dir.join(dir);
        match fs::remove_dir(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound || e.kind() == ErrorKind::NotADirectory => {}
            Err(e) => return Err(RefsError::io(&path, e)),
        }
    }
    Ok(git_dir.join("refs/heads"))
}
