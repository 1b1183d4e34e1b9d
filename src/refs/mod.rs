//! Refs: read a source repository's ref store (files backend) into a
//! snapshot, and write it translated into the destination.
//!
//! Covers `HEAD`, loose refs, `packed-refs` (with peeled lines), pseudo-refs
//! (`ORIG_HEAD`, `FETCH_HEAD`, ...), reflogs and replace refs, as listed in
//! docs/translation.md ("Refs"). Each file format has its own module; the
//! snapshot ([`read_source_refs`]) and the translated output
//! ([`write_translated_refs`]) are the two entry points; [`update_refs`]
//! changes the refs of a repository in use, under git's ref locks. Reftable
//! repositories are refused ([`detect_reftable`]); operations in progress
//! are detected ([`in_progress_operation`]) so the caller can refuse them.
//!
//! Not covered: per-worktree refs of linked worktrees (`worktrees/*/`).

mod error;
mod mapping;
mod packed;
mod pseudo;
mod publish;
mod read;
mod reflog;
mod state;
mod target;
mod update;
mod write;

#[cfg(test)]
mod git_tests;

pub use error::RefsError;
pub use mapping::IdMap;
pub use packed::{PackedRef, PackedRefs};
pub use pseudo::{IdLine, PSEUDO_REFS, PseudoContent, PseudoRef};
pub use read::{LooseRef, SourceRefs, detect_reftable, read_source_refs};
pub use reflog::{Reflog, ReflogEntry};
pub use state::in_progress_operation;
pub use target::RefTarget;
pub use update::{RefUpdate, update_refs};
pub use write::{RefsOutcome, write_translated_refs};
