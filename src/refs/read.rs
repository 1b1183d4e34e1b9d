//! Taking the read-only snapshot of a repository's refs ([`SourceRefs`],
//! snapshot.rs): `HEAD`, loose refs, `packed-refs`, pseudo-refs and
//! reflogs, from either backend (a reftable stack is presented in the same
//! shape: reftable/snapshot_read.rs; the files backend's files are read by
//! loose_files.rs), plus the HEADs and refs of linked worktrees
//! (worktrees.rs).
//!
//! Nothing here writes to the source, not even a lock file: the snapshot is
//! taken by plain reads, and the orchestrator refuses to convert a
//! repository with an operation in progress (see [`super::in_progress_operation`]).

use std::path::Path;

use super::error::RefsError;
use super::loose_files::{
    list_ref_files, read_optional, read_pseudo_files, read_ref_file, read_reflog_files,
};
use super::packed::PackedRefs;
use super::pseudo::PSEUDO_REFS;
use super::reftable::{FILE_PSEUDO_REFS, read_view};
use super::snapshot::{LooseRef, SourceRefs};
use super::storage::RefStorage;
use super::worktrees::add_linked_worktrees;
use crate::hash::HashKind;

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
        path: git_dir.join(super::storage::REFTABLE_DIR),
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

#[cfg(test)]
mod tests {
    use super::read_source_refs;
    use crate::hash::HashKind;
    use crate::refs::error::RefsError;
    use crate::testing::git::git;

    #[test]
    fn own_refs_in_the_worktree_namespaces_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let main = dir.path().join("main");
        std::fs::create_dir(&main).expect("mkdir");
        git(&main, &["init", "-q", "-b", "main"]);
        git(&main, &["commit", "-q", "--allow-empty", "-m", "one"]);
        git(&main, &["update-ref", "refs/worktree-heads/wt", "HEAD"]);
        let git_dir = main.join(".git");
        // Without linked worktrees the name is an ordinary ref.
        assert!(read_source_refs(&git_dir, HashKind::Sha1).is_ok());
        git(&main, &["worktree", "add", "-q", "--detach", "../wt"]);
        match read_source_refs(&git_dir, HashKind::Sha1) {
            Err(RefsError::WorktreeNamespaceTaken { name }) => {
                assert_eq!(name, "refs/worktree-heads/wt");
            }
            other => panic!("{other:?}"),
        }
    }
}
