//! Linked worktrees (`git worktree add`): each keeps its own `HEAD`, the
//! reflog of it, and its per-worktree refs (`refs/bisect/`, `refs/worktree/`,
//! `refs/rewritten/`) in `worktrees/<name>/` of the common git directory,
//! as files or as a reftable stack of its own, whichever the repository
//! uses.
//!
//! DEST is a bare repository without worktrees, yet what they name must
//! survive: a detached worktree HEAD can be the only thing that keeps a
//! commit from being pruned. So each worktree's refs join the snapshot
//! under names of their own, as DEST will hold them:
//!
//! ```text
//! worktrees/<name>/HEAD             -> refs/worktree-heads/<name>
//! worktrees/<name>/refs/<rest>      -> refs/worktree-refs/<name>/<rest>
//! ```
//!
//! with their reflogs under the same names. A symbolic HEAD stays symbolic
//! (`ref: refs/heads/<branch>`); one whose branch does not exist yet (a new
//! orphan branch) names nothing and is left out. Pseudo-refs of a worktree
//! (its `ORIG_HEAD`, ...) are left out, like the state of an operation in
//! progress there.

use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use super::error::RefsError;
use super::loose_files::{list_ref_files, read_ref_file, read_reflog_files};
use super::reftable::read_view;
use super::snapshot::{LooseRef, SourceRefs};
use super::storage::RefStorage;
use super::{RefTarget, Reflog};
use crate::hash::HashKind;

/// Where a linked worktree's `HEAD` goes: this prefix and its name.
pub const WORKTREE_HEADS: &str = "refs/worktree-heads/";

/// Where a linked worktree's own refs go: this prefix, its name, and the
/// ref's name after `refs/`.
pub const WORKTREE_REFS: &str = "refs/worktree-refs/";

/// One linked worktree's refs, under their own names.
struct WorktreeRefs {
    head: Option<RefTarget>,
    refs: Vec<LooseRef>,
    reflogs: Vec<Reflog>,
}

/// Adds the refs of every linked worktree of `git_dir` to `refs`.
pub(super) fn add_linked_worktrees(
    refs: &mut SourceRefs,
    git_dir: &Path,
    hash: HashKind,
) -> Result<(), RefsError> {
    let dir = git_dir.join("worktrees");
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(RefsError::io(&dir, e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| RefsError::io(&dir, e))?;
        if entry
            .file_type()
            .map_err(|e| RefsError::io(&dir, e))?
            .is_dir()
        {
            let name = entry
                .file_name()
                .into_string()
                .map_err(|_| RefsError::NonUtf8Name { path: entry.path() })?;
            names.push(name);
        }
    }
    if names.is_empty() {
        return Ok(());
    }
    names.sort();
    refuse_taken_namespace(refs)?;
    let existing: std::collections::HashSet<String> = refs
        .effective_refs()
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    for name in names {
        let path = dir.join(&name);
        if !is_ref_component(&name) {
            return Err(RefsError::BadWorktreeName { path });
        }
        let worktree = match RefStorage::of(&path) {
            RefStorage::Files => read_files_worktree(&path, hash)?,
            RefStorage::Reftable => read_reftable_worktree(&path, hash)?,
        };
        let head_name = format!("{WORKTREE_HEADS}{name}");
        let refs_prefix = format!("{WORKTREE_REFS}{name}/");
        let renamed = |refname: &str| match refname.strip_prefix("refs/") {
            Some(rest) => format!("{refs_prefix}{rest}"),
            None => head_name.clone(),
        };
        let head = worktree.head.filter(|target| match target {
            RefTarget::Direct(_) => true,
            RefTarget::Symbolic(to) => existing.contains(to),
        });
        if let Some(target) = head {
            refs.loose.push(LooseRef {
                name: head_name.clone(),
                target,
            });
        }
        for r in worktree.refs {
            refs.loose.push(LooseRef {
                name: renamed(&r.name),
                target: r.target,
            });
        }
        for log in worktree.reflogs {
            refs.reflogs.push(Reflog {
                name: renamed(&log.name),
                entries: log.entries,
            });
        }
    }
    refs.loose.sort_by(|a, b| a.name.cmp(&b.name));
    refs.reflogs
        .sort_by(|a, b| (a.name != "HEAD", &a.name).cmp(&(b.name != "HEAD", &b.name)));
    Ok(())
}

/// A worktree of a files-backend repository: `HEAD`, `refs/**`, `logs/`.
fn read_files_worktree(dir: &Path, hash: HashKind) -> Result<WorktreeRefs, RefsError> {
    let head = read_ref_file(&dir.join("HEAD"), hash)?;
    let mut refs = Vec::new();
    for (name, path) in list_ref_files(dir, "refs")? {
        if let Some(target) = read_ref_file(&path, hash)? {
            refs.push(LooseRef { name, target });
        }
    }
    Ok(WorktreeRefs {
        head,
        refs,
        reflogs: read_reflog_files(dir, hash)?,
    })
}

/// A worktree of a reftable repository: its own stack in `reftable/`.
fn read_reftable_worktree(dir: &Path, hash: HashKind) -> Result<WorktreeRefs, RefsError> {
    let view = read_view(dir, hash)?;
    let mut refs = view.symbolic;
    refs.extend(view.direct.into_iter().map(|r| LooseRef {
        name: r.name,
        target: RefTarget::Direct(r.id),
    }));
    Ok(WorktreeRefs {
        head: view.head,
        refs,
        reflogs: view.reflogs,
    })
}

/// SOURCE's own refs must not already use the names worktrees' refs get.
fn refuse_taken_namespace(refs: &SourceRefs) -> Result<(), RefsError> {
    let taken = |name: &str| name.starts_with(WORKTREE_HEADS) || name.starts_with(WORKTREE_REFS);
    let own = refs.effective_refs().into_iter().map(|(name, _)| name);
    let logged = refs.reflogs.iter().map(|log| log.name.clone());
    match own.chain(logged).find(|name| taken(name)) {
        Some(name) => Err(RefsError::WorktreeNamespaceTaken { name }),
        None => Ok(()),
    }
}

/// Whether `name` can be one component of a ref name (git's
/// `check_refname_format` rules for a component).
fn is_ref_component(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.ends_with(".lock")
        && !name.contains("..")
        && !name.contains("@{")
        && name != "@"
        && !name
            .bytes()
            .any(|b| b <= b' ' || b == 0x7f || b"/~^:?*[\\".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::is_ref_component;

    #[test]
    fn worktree_names_must_be_ref_components() {
        for good in ["wt", "feature-x", "wt1", "a.b"] {
            assert!(is_ref_component(good), "{good}");
        }
        for bad in [
            "", ".hidden", "x.lock", "a..b", "a b", "a:b", "a@{1", "@", "a~1",
        ] {
            assert!(!is_ref_component(bad), "{bad}");
        }
    }
}
