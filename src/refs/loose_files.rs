//! Reading the files of a files-backend ref store: one-value ref files
//! (a symlink into `refs/` read as a symbolic ref), the reflogs under
//! `logs/`, pseudo-ref files, and the listing of a directory of refs as git's
//! `loose_fill_ref_dir` lists it.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::RefTarget;
use super::error::RefsError;
use super::pseudo::{PseudoRef, parse_pseudo_ref};
use super::reflog::{Reflog, parse_reflog};
use super::target::parse_ref_content;
use crate::hash::HashKind;

/// The pseudo-ref files `names` of `dir` that exist, in that order.
pub(super) fn read_pseudo_files(
    dir: &Path,
    hash: HashKind,
    names: &[&str],
) -> Result<Vec<PseudoRef>, RefsError> {
    let mut pseudo = Vec::new();
    for name in names {
        let path = dir.join(name);
        if let Some(content) = read_optional(&path)? {
            pseudo.push(PseudoRef {
                name: name.to_string(),
                content: parse_pseudo_ref(&path, hash, &content)?,
            });
        }
    }
    Ok(pseudo)
}

/// `logs/HEAD` (when it exists) and `logs/refs/**` of `dir`, by name.
pub(super) fn read_reflog_files(dir: &Path, hash: HashKind) -> Result<Vec<Reflog>, RefsError> {
    let logs = dir.join("logs");
    let mut reflog_files = vec![("HEAD".to_string(), logs.join("HEAD"))];
    reflog_files.extend(list_ref_files(&logs, "refs")?);
    let mut reflogs = Vec::with_capacity(reflog_files.len());
    for (name, path) in reflog_files {
        // `logs/HEAD` is absent when the repository does not log HEAD.
        if let Some(content) = read_optional(&path)? {
            let entries = parse_reflog(&path, hash, &content)?;
            reflogs.push(Reflog { name, entries });
        }
    }
    Ok(reflogs)
}

/// Reads a one-value ref file; `None` if it does not exist. A symlink into
/// `refs/` is git's legacy form of a symbolic ref and is read as one.
pub(crate) fn read_ref_file(path: &Path, hash: HashKind) -> Result<Option<RefTarget>, RefsError> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let link = fs::read_link(path).map_err(|e| RefsError::io(path, e))?;
            if let Some(name) = link.to_str().filter(|l| l.starts_with("refs/")) {
                return Ok(Some(RefTarget::Symbolic(name.to_string())));
            }
        }
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(RefsError::io(path, e)),
    }
    read_optional(path)?
        .map(|content| parse_ref_content(path, hash, &content))
        .transpose()
}

/// The file content, or `None` if it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, RefsError> {
    match fs::read(path) {
        Ok(content) => Ok(Some(content)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(RefsError::io(path, e)),
    }
}

/// Lists the files under `base/<prefix>` recursively as `(name, path)`
/// pairs, `name` being `<prefix>/<relative path>` with `/` separators,
/// sorted by name. Like git's `loose_fill_ref_dir`, names starting with `.`
/// and ending in `.lock` are skipped (lock files of in-flight updates).
pub(super) fn list_ref_files(
    base: &Path,
    prefix: &str,
) -> Result<Vec<(String, PathBuf)>, RefsError> {
    let mut found = Vec::new();
    let mut pending = vec![(prefix.to_string(), base.join(prefix))];
    while let Some((dir_name, dir)) = pending.pop() {
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(RefsError::io(&dir, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| RefsError::io(&dir, e))?;
            let path = entry.path();
            let file_name = entry.file_name();
            let Some(file_name) = file_name.to_str() else {
                return Err(RefsError::NonUtf8Name { path });
            };
            if file_name.starts_with('.') || file_name.ends_with(".lock") {
                continue;
            }
            let name = format!("{dir_name}/{file_name}");
            let file_type = entry.file_type().map_err(|e| RefsError::io(&path, e))?;
            if file_type.is_dir() {
                pending.push((name, path));
            } else {
                found.push((name, path));
            }
        }
    }
    found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}
