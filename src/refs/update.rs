//! Updating the refs of a repository that other programs may use at the
//! same time (a mirror git serves), as git's files backend does it: every
//! ref to change is locked (`<ref>.lock`, created exclusively), its value
//! is read again under the lock and compared with what the caller saw, and
//! only then are the new values renamed into place. A ref some other
//! program changed in between is not overwritten: the update stops and
//! names it, and nothing is changed.
//!
//! A deleted ref disappears from `packed-refs` (rewritten under
//! `packed-refs.lock`) and as a loose file, with its reflog, as `git
//! update-ref -d` does. Reflogs of updated refs are left as they are.

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use super::error::RefsError;
use super::loose_files::{read_optional, read_ref_file};
use super::publish::lock_path;
use super::{PackedRefs, RefTarget};
use crate::hash::HashKind;

/// One ref to create, move or delete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefUpdate {
    /// `HEAD` or a full name (`refs/heads/main`).
    pub name: String,
    /// Its value as the caller read it: `None` when it did not exist.
    pub old: Option<RefTarget>,
    /// Its new value: `None` deletes it.
    pub new: Option<RefTarget>,
}

/// Lock files taken, removed on drop unless renamed into place first
/// (with the directories made for them, when left empty).
struct Locks<'a> {
    git_dir: &'a Path,
    taken: Vec<PathBuf>,
}

impl Locks<'_> {
    /// Creates `path` exclusively; another program's lock is an error
    /// naming `refname`.
    fn take(&mut self, refname: &str, path: PathBuf) -> Result<fs::File, RefsError> {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| RefsError::io(dir, e))?;
        }
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => {
                self.taken.push(path);
                Ok(file)
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => Err(RefsError::Locked {
                refname: refname.to_string(),
                lock: path,
            }),
            Err(e) => Err(RefsError::io(&path, e)),
        }
    }
}

impl Drop for Locks<'_> {
    fn drop(&mut self) {
        for path in &self.taken {
            if fs::remove_file(path).is_ok() {
                prune_empty_parents(self.git_dir, path);
            }
        }
    }
}

/// Applies `updates` to the refs of `git_dir` (ids of kind `hash`), all or
/// none of them: any lock held by another program, or any ref whose value
/// is no longer its `old`, stops the update before a ref changes.
pub fn update_refs(git_dir: &Path, hash: HashKind, updates: &[RefUpdate]) -> Result<(), RefsError> {
    if updates.is_empty() {
        return Ok(());
    }
    let mut locks = Locks {
        git_dir,
        taken: Vec::new(),
    };
    let mut files = Vec::with_capacity(updates.len());
    for update in updates {
        let path = git_dir.join(&update.name);
        let file = locks.take(&update.name, lock_path(&path))?;
        files.push((path, file));
    }
    let deletes: Vec<&RefUpdate> = updates.iter().filter(|u| u.new.is_none()).collect();
    let packed_path = git_dir.join("packed-refs");
    let packed_lock = if deletes.is_empty() {
        None
    } else {
        Some(locks.take("packed-refs", lock_path(&packed_path))?)
    };
    let packed = read_optional(&packed_path)?
        .map(|content| PackedRefs::parse(&packed_path, hash, &content))
        .transpose()?;

    // Under the locks: every ref must still be what the caller saw.
    for (update, (path, _)) in updates.iter().zip(&files) {
        // A directory there is the room made for a ref of this update.
        let loose = match path.is_dir() {
            true => None,
            false => read_ref_file(path, hash)?,
        };
        let found = loose.or_else(|| {
            packed
                .iter()
                .flat_map(|p| &p.entries)
                .find(|e| e.name == update.name)
                .map(|e| RefTarget::Direct(e.id))
        });
        if found != update.old {
            return Err(RefsError::Changed {
                refname: update.name.clone(),
            });
        }
    }
    // git keeps `refs/x` and `refs/x/y` apart: a packed ref that stays
    // must not be a directory of a ref written, nor the other way round.
    let stays = packed
        .iter()
        .flat_map(|p| &p.entries)
        .filter(|e| !deletes.iter().any(|d| d.name == e.name));
    for entry in stays {
        let nested = |a: &str, b: &str| a.strip_prefix(b).is_some_and(|r| r.starts_with('/'));
        if let Some(update) = updates
            .iter()
            .filter(|u| u.new.is_some())
            .find(|u| nested(&u.name, &entry.name) || nested(&entry.name, &u.name))
        {
            return Err(RefsError::NameConflict {
                refname: update.name.clone(),
                other: entry.name.clone(),
            });
        }
    }
    for (update, (_, file)) in updates.iter().zip(&mut files) {
        if let Some(new) = &update.new {
            let lock = lock_path(&git_dir.join(&update.name));
            file.write_all(&new.file_bytes())
                .and_then(|()| file.sync_data())
                .map_err(|e| RefsError::io(&lock, e))?;
        }
    }
    let mut dirs = BTreeSet::new();
    if let (Some(mut lock_file), Some(mut packed)) = (packed_lock, packed) {
        let before = packed.entries.len();
        packed
            .entries
            .retain(|e| !deletes.iter().any(|d| d.name == e.name));
        if packed.entries.len() != before {
            let lock = lock_path(&packed_path);
            lock_file
                .write_all(&packed.to_bytes())
                .and_then(|()| lock_file.sync_data())
                .map_err(|e| RefsError::io(&lock, e))?;
            fs::rename(&lock, &packed_path).map_err(|e| RefsError::io(&packed_path, e))?;
            dirs.insert(git_dir.to_path_buf());
        }
    }
    for (update, (path, _)) in updates.iter().zip(&files) {
        let lock = lock_path(path);
        if update.new.is_some() {
            fs::rename(&lock, path).map_err(|e| RefsError::io(path, e))?;
        } else {
            let log = git_dir.join("logs").join(&update.name);
            let removed = [remove_if_there(path)?, remove_if_there(&log)?];
            // The lock last: until then no one else may write the ref.
            fs::remove_file(&lock).map_err(|e| RefsError::io(&lock, e))?;
            for (gone, file) in removed.into_iter().zip([path, &log]) {
                if gone {
                    prune_empty_parents(git_dir, file);
                }
            }
        }
        // The directory that now holds the change (a pruned one's parent).
        if let Some(dir) = path.ancestors().skip(1).find(|d| d.is_dir()) {
            dirs.insert(dir.to_path_buf());
        }
    }
    // Every lock is renamed or removed: nothing is left to clean up.
    locks.taken.clear();
    for dir in dirs {
        crate::durable::sync_dir(&dir).map_err(|e| RefsError::io(&e.path, e.source))?;
    }
    Ok(())
}

/// Removes `path`; `false` when there was nothing to remove (or only the
/// directory of a ref written in the same update).
fn remove_if_there(path: &Path) -> Result<bool, RefsError> {
    if path.is_dir() {
        return Ok(false);
    }
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(RefsError::io(path, e)),
    }
}

/// Removes the directories a deleted file leaves empty, up to (not
/// including) `refs/<kind>` and `logs/refs/<kind>`, which git keeps.
fn prune_empty_parents(git_dir: &Path, file: &Path) {
    let mut dir = file.parent();
    while let Some(d) = dir {
        let depth = d
            .strip_prefix(git_dir)
            .map_or(0, |r| r.components().count());
        let kept = if d.starts_with(git_dir.join("logs")) {
            3
        } else {
            2
        };
        if depth <= kept || fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::ObjectId;

    fn id(n: u8) -> RefTarget {
        RefTarget::Direct(ObjectId::Sha1([n; 20]))
    }

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("refs/heads/topic")).unwrap();
        fs::create_dir_all(dir.path().join("logs/refs/heads/topic")).unwrap();
        fs::write(dir.path().join("refs/heads/topic/a"), id(1).file_bytes()).unwrap();
        fs::write(dir.path().join("logs/refs/heads/topic/a"), b"log\n").unwrap();
        let packed = format!(
            "# pack-refs with: peeled fully-peeled sorted \n{} refs/heads/main\n{} refs/tags/t\n^{}\n",
            "11".repeat(20),
            "22".repeat(20),
            "33".repeat(20)
        );
        fs::write(dir.path().join("packed-refs"), packed).unwrap();
        dir
    }

    fn update(name: &str, old: Option<RefTarget>, new: Option<RefTarget>) -> RefUpdate {
        RefUpdate {
            name: name.into(),
            old,
            new,
        }
    }

    #[test]
    fn creates_moves_and_deletes_loose_and_packed_refs() {
        let dir = repo();
        let git = dir.path();
        update_refs(
            git,
            HashKind::Sha1,
            &[
                update("refs/heads/main", Some(id(0x11)), Some(id(4))),
                update("refs/heads/new", None, Some(id(5))),
                update("refs/tags/t", Some(id(0x22)), None),
                update("refs/heads/topic/a", Some(id(1)), None),
                update(
                    "HEAD",
                    None,
                    Some(RefTarget::Symbolic("refs/heads/new".into())),
                ),
            ],
        )
        .unwrap();
        let read = |name: &str| read_ref_file(&git.join(name), HashKind::Sha1).unwrap();
        assert_eq!(read("refs/heads/main"), Some(id(4)));
        assert_eq!(read("refs/heads/new"), Some(id(5)));
        assert_eq!(
            read("HEAD"),
            Some(RefTarget::Symbolic("refs/heads/new".into()))
        );
        let packed = fs::read_to_string(git.join("packed-refs")).unwrap();
        assert!(
            !packed.contains("refs/tags/t") && !packed.contains('^'),
            "{packed}"
        );
        assert!(
            packed.contains("refs/heads/main"),
            "a moved ref stays packed (shadowed)"
        );
        assert!(
            !git.join("refs/heads/topic").exists(),
            "emptied directory pruned"
        );
        assert!(
            !git.join("logs/refs/heads/topic").exists(),
            "its reflog goes too"
        );
        assert!(git.join("refs/heads").is_dir());
        let leftovers: Vec<_> = walk(git)
            .into_iter()
            .filter(|p| p.ends_with(".lock"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn a_ref_changed_or_locked_by_someone_else_stops_everything() {
        let dir = repo();
        let git = dir.path();
        let err = update_refs(
            git,
            HashKind::Sha1,
            &[
                update("refs/heads/new", None, Some(id(5))),
                update("refs/heads/topic/a", Some(id(9)), Some(id(6))),
            ],
        )
        .unwrap_err();
        assert!(
            matches!(err, RefsError::Changed { ref refname } if refname == "refs/heads/topic/a")
        );
        assert!(!git.join("refs/heads/new").exists(), "nothing changed");
        fs::write(git.join("refs/heads/topic/a.lock"), b"").unwrap();
        let err = update_refs(
            git,
            HashKind::Sha1,
            &[update("refs/heads/topic/a", Some(id(1)), None)],
        )
        .unwrap_err();
        assert!(matches!(err, RefsError::Locked { .. }), "{err}");
        assert!(git.join("refs/heads/topic/a").exists());
        assert!(
            git.join("refs/heads/topic/a.lock").exists(),
            "their lock is theirs"
        );
        assert!(!git.join("packed-refs.lock").exists(), "ours is removed");
    }

    #[test]
    fn a_ref_nested_in_a_packed_one_is_refused() {
        let dir = repo();
        let err = update_refs(
            dir.path(),
            HashKind::Sha1,
            &[update("refs/heads/main/sub", None, Some(id(7)))],
        )
        .unwrap_err();
        assert!(matches!(err, RefsError::NameConflict { .. }), "{err}");
        assert!(!dir.path().join("refs/heads/main").exists());
        // Deleted in the same update, it is no conflict.
        update_refs(
            dir.path(),
            HashKind::Sha1,
            &[
                update("refs/heads/main", Some(id(0x11)), None),
                update("refs/heads/main/sub", None, Some(id(7))),
            ],
        )
        .unwrap();
    }

    fn walk(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path.display().to_string());
            }
        }
        out
    }
}
