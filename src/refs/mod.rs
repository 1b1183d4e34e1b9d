//! Refs: read a repository's ref store (files backend or reftable) into a
//! snapshot, and write it translated into the destination, in either.
//!
//! Covers `HEAD`, loose refs, `packed-refs` (with peeled lines), pseudo-refs
//! (`ORIG_HEAD`, `FETCH_HEAD`, ...), reflogs and replace refs, as listed in
//! docs/translation.md ("Refs"), and the HEADs, refs and reflogs of linked
//! worktrees (worktrees.rs). Each file format has its own module, the
//! reftable format its own directory; the snapshot ([`read_source_refs`])
//! and the translated output ([`write_translated_refs`]) are the two entry
//! points; [`update_refs`] changes the refs of a files repository in use,
//! under git's ref locks. Operations in progress are detected
//! ([`in_progress_operation`]) so the caller can refuse them.
//! [`rehash_refs`] names git-rehash's own refs (`refs/rehash/`);
//! [`RefSelection`] the refs a conversion carries (`--refs`,
//! `--exclude-refs`).

mod error;
mod loose_files;
mod loose_or_packed;
mod mapping;
mod packed;
mod pseudo;
mod publish;
mod read;
mod reflog;
mod reftable;
pub mod rehash_refs;
mod selection;
mod snapshot;
mod state;
mod storage;
mod target;
mod update;
mod worktrees;
mod write;

#[cfg(test)]
mod git_tests;

pub use error::RefsError;
pub use loose_or_packed::{PeelMap, Peeled};
pub use mapping::TranslateId;
pub use packed::{PackedRef, PackedRefs};
pub use pseudo::{IdLine, PSEUDO_REFS, PseudoContent, PseudoRef};
pub use read::read_source_refs;
pub use reflog::{Reflog, ReflogEntry};
pub use selection::{RefPattern, RefSelection};
pub use snapshot::{EffectiveRef, LooseRef, SourceRefs};
pub use state::{in_progress_in_table, in_progress_operation};
pub use storage::RefStorage;
pub use target::RefTarget;
pub use update::{RefUpdate, update_refs};
pub use worktrees::{WORKTREE_HEADS, WORKTREE_REFS};
pub use write::{RefsOutcome, point_refs, write_translated_refs};
