//! Detection of operations in progress (rebase, merge, cherry-pick, bisect,
//! notes merge). Their state files hold ids in many ad-hoc formats (todo
//! lists, `onto`, `orig-head`, `abort-safety`, ...); rather than translate
//! them all, the orchestrator refuses to convert until the user finishes or
//! aborts the operation.

use std::path::Path;

use super::{RefStorage, SourceRefs};

/// `(file or directory in the git dir, what it means)`, most specific first.
const MARKERS: &[(&str, &str)] = &[
    ("rebase-merge", "a rebase (rebase-merge/)"),
    ("rebase-apply", "a rebase or `git am` (rebase-apply/)"),
    ("sequencer", "a cherry-pick or revert sequence (sequencer/)"),
    ("MERGE_HEAD", "a merge (MERGE_HEAD)"),
    ("CHERRY_PICK_HEAD", "a cherry-pick (CHERRY_PICK_HEAD)"),
    ("REVERT_HEAD", "a revert (REVERT_HEAD)"),
    ("REBASE_HEAD", "a rebase (REBASE_HEAD)"),
    ("BISECT_LOG", "a bisection (BISECT_LOG)"),
    ("BISECT_START", "a bisection (BISECT_START)"),
    ("NOTES_MERGE_PARTIAL", "a notes merge (NOTES_MERGE_PARTIAL)"),
    ("NOTES_MERGE_REF", "a notes merge (NOTES_MERGE_REF)"),
    (
        "NOTES_MERGE_WORKTREE",
        "a notes merge (NOTES_MERGE_WORKTREE/)",
    ),
];

/// The operation in progress in `git_dir`, described for an error message
/// ("cannot convert during {it}; finish or abort it first"), or `None`.
pub fn in_progress_operation(git_dir: &Path) -> Option<&'static str> {
    MARKERS
        .iter()
        .find(|(marker, _)| git_dir.join(marker).symlink_metadata().is_ok())
        .map(|(_, what)| *what)
}

/// The operation in progress that a reftable repository records only in
/// its table (`CHERRY_PICK_HEAD`, `REVERT_HEAD`, `REBASE_HEAD` are refs
/// there, not files), or `None`.
pub fn in_progress_in_table(refs: &SourceRefs) -> Option<&'static str> {
    if refs.storage != RefStorage::Reftable {
        return None;
    }
    MARKERS
        .iter()
        .find(|(marker, _)| refs.pseudo.iter().any(|p| p.name == *marker))
        .map(|(_, what)| *what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_files_and_dirs() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(in_progress_operation(dir.path()), None);
        std::fs::write(dir.path().join("BISECT_LOG"), "").expect("write");
        assert_eq!(
            in_progress_operation(dir.path()),
            Some("a bisection (BISECT_LOG)")
        );
        std::fs::create_dir(dir.path().join("rebase-merge")).expect("mkdir");
        assert_eq!(
            in_progress_operation(dir.path()),
            Some("a rebase (rebase-merge/)")
        );
    }
}
