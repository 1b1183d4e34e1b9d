//! A read-only snapshot of a repository's refs: `HEAD`, loose refs,
//! `packed-refs`, pseudo-refs and reflogs, from either backend (a reftable
//! stack is presented in the same shape: reftable/snapshot_read.rs), plus
//! the HEADs and refs of linked worktrees (worktrees.rs).
//!
//! Nothing here writes to the source, not even a lock file: the snapshot is
//! taken by plain reads, and the orchestrator refuses to convert a
//! repository with an operation in progress (see [`super::in_progress_operation`]).

use std::collections::BTreeMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::RefTarget;
use super::error::RefsError;
use super::packed::PackedRefs;
use super::pseudo::{PSEUDO_REFS, PseudoRef, parse_pseudo_ref};
use super::reflog::{Reflog, parse_reflog};
use super::reftable::{FILE_PSEUDO_REFS, read_view};
use super::storage::RefStorage;
use super::target::parse_ref_content;
use super::worktrees::add_linked_worktrees;
use crate::hash::{HashKind, ObjectId};

/// A loose ref: one file under `refs/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LooseRef {
    /// The full name, e.g. `refs/heads/main`.
    pub name: String,
    pub target: RefTarget,
}

/// Everything in the source's ref store that names objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceRefs {
    /// The hash kind of every id in the snapshot.
    pub hash: HashKind,
    /// The backend the refs were read from (a reftable stack is presented
    /// as `packed-refs` plus loose symbolic refs).
    pub storage: RefStorage,
    pub head: RefTarget,
    /// Sorted by name (byte order, as git sorts refs).
    pub loose: Vec<LooseRef>,
    /// `None` when the repository has no `packed-refs` file.
    pub packed: Option<PackedRefs>,
    /// Present pseudo-refs, in [`PSEUDO_REFS`] order.
    pub pseudo: Vec<PseudoRef>,
    /// `logs/HEAD` first, then `logs/refs/**` sorted by name.
    pub reflogs: Vec<Reflog>,
}

/// A ref as git resolves it, with the peeled value `packed-refs` gives it.
pub type EffectiveRef = (String, RefTarget, Option<ObjectId>);

/// Reads the refs of the repository at `git_dir` (a bare repository or a
/// `.git` directory) whose ids are of kind `hash`, in whichever backend it
/// keeps them, with its linked worktrees' HEADs and refs.
pub fn read_source_refs(git_dir: &Path, hash: HashKind) -> Result<SourceRefs, RefsError> {
    let mut refs = match RefStorage::of(git_dir) {
        RefStorage::Files => read_files_store(git_dir, hash)?,
        RefStorage::Reftable => read_reftable_store(git_dir, hash)?,
    };
    add_linked_worktrees(&mut refs, git_dir, hash)?;
    Ok(refs)
}

/// The refs of a reftable repository, in the files backend's shape; the
/// pseudo-refs git keeps as files even there are read as files.
fn read_reftable_store(git_dir: &Path, hash: HashKind) -> Result<SourceRefs, RefsError> {
    let mut view = read_view(git_dir, hash)?;
    let head = view.head.take().ok_or_else(|| RefsError::MissingHead {
        path: git_dir.join(super::reftable::REFTABLE_DIR),
    })?;
    let files = read_pseudo_files(git_dir, hash, &FILE_PSEUDO_REFS)?;
    Ok(SourceRefs {
        hash,
        storage: RefStorage::Reftable,
        head,
        loose: std::mem::take(&mut view.symbolic),
        packed: view.packed(),
        pseudo: view.pseudo_refs(files),
        reflogs: std::mem::take(&mut view.reflogs),
    })
}

/// The refs of a files-backend repository.
fn read_files_store(git_dir: &Path, hash: HashKind) -> Result<SourceRefs, RefsError> {
    let head_path = git_dir.join("HEAD");
    let head =
        read_ref_file(&head_path, hash)?.ok_or(RefsError::MissingHead { path: head_path })?;

    let mut loose = Vec::new();
    for (name, path) in list_ref_files(git_dir, "refs")? {
        // A file that vanished between listing and reading was deleted by a
        // concurrent git; it is no longer a ref.
        if let Some(target) = read_ref_file(&path, hash)? {
            loose.push(LooseRef { name, target });
        }
    }

    let packed_path = git_dir.join("packed-refs");
    let packed = read_optional(&packed_path)?
        .map(|content| PackedRefs::parse(&packed_path, hash, &content))
        .transpose()?;

    let pseudo = read_pseudo_files(git_dir, hash, PSEUDO_REFS)?;

    let reflogs = read_reflog_files(git_dir, hash)?;

    Ok(SourceRefs {
        hash,
        storage: RefStorage::Files,
        head,
        loose,
        packed,
        pseudo,
        reflogs,
    })
}

impl SourceRefs {
    /// The refs as git resolves them: a loose ref hides a packed ref of the
    /// same name (git deletes from `packed-refs` lazily). Sorted by name.
    pub fn effective_refs(&self) -> Vec<(String, RefTarget)> {
        self.effective_refs_peeled()
            .into_iter()
            .map(|(name, target, _)| (name, target))
            .collect()
    }

    /// [`SourceRefs::effective_refs`] with their peeled values: those of
    /// the `packed-refs` entries no loose ref hides (git ignores the peeled
    /// line of a hidden entry).
    pub fn effective_refs_peeled(&self) -> Vec<EffectiveRef> {
        let mut refs: BTreeMap<&str, (RefTarget, Option<ObjectId>)> = BTreeMap::new();
        for entry in self.packed.iter().flat_map(|p| &p.entries) {
            refs.insert(&entry.name, (RefTarget::Direct(entry.id), entry.peeled));
        }
        for entry in &self.loose {
            refs.insert(&entry.name, (entry.target.clone(), None));
        }
        refs.into_iter()
            .map(|(name, (target, peeled))| (name.to_string(), target, peeled))
            .collect()
    }

    /// The values of `HEAD`, branches and tags (loose and packed): the
    /// commits clients ask for, which a bitmap covers first.
    pub fn tip_ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        let wanted = |name: &str| name.starts_with("refs/heads/") || name.starts_with("refs/tags/");
        let packed = self.packed.iter().flat_map(|p| &p.entries);
        self.head
            .id()
            .into_iter()
            .chain(
                self.loose
                    .iter()
                    .filter(move |r| wanted(&r.name))
                    .filter_map(|r| r.target.id()),
            )
            .chain(packed.filter(move |r| wanted(&r.name)).map(|r| r.id))
            .filter(|id| !id.is_null())
    }

    /// Every id the snapshot names: `HEAD`, loose and packed refs (shadowed
    /// ones included, since they are written too), peeled lines, pseudo-refs
    /// and reflogs. The all-zero id is skipped: it means "no object". Ids may
    /// repeat.
    pub fn all_ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        let packed = self.packed.iter().flat_map(|p| &p.entries);
        self.head
            .id()
            .into_iter()
            .chain(self.loose.iter().filter_map(|r| r.target.id()))
            .chain(packed.flat_map(|r| std::iter::once(r.id).chain(r.peeled)))
            .chain(self.pseudo.iter().flat_map(|p| p.ids()))
            .chain(
                self.reflogs
                    .iter()
                    .flat_map(|log| &log.entries)
                    .flat_map(|e| [e.old, e.new]),
            )
            .filter(|id| !id.is_null())
    }
}

/// The pseudo-ref files `names` of `dir` that exist, in that order.
fn read_pseudo_files(
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
