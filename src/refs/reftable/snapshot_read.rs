//! A merged stack seen the way the rest of the refs layer sees a files
//! repository, so everything downstream (planning, translation, writing
//! either format, verify) has one shape to deal with.
//!
//! The shape is the one `git refs migrate --ref-format=files` gives:
//! refs naming an object go to `packed-refs` (with their peeled value
//! when the table has one), symbolic refs stay loose, the root refs the
//! table holds (`ORIG_HEAD`, ...) become pseudo-refs, and the log records
//! become reflog lines. The `packed-refs` header claims only `sorted`:
//! a table written by another tool need not peel every tag, and without
//! the `peeled` traits git peels whatever has no `^` line itself.

use std::collections::BTreeMap;
use std::path::Path;

use super::log_text::tail_of;
use super::records::{LogRecord, RefRecord, RefValue};
use super::stack_read::{Merged, read_stack};
use crate::hash::HashKind;
use crate::refs::error::RefsError;
use crate::refs::pseudo::{IdLine, PSEUDO_REFS, PseudoContent, PseudoRef};
use crate::refs::snapshot::LooseRef;
use crate::refs::storage::REFTABLE_DIR;
use crate::refs::{PackedRef, PackedRefs, RefTarget, Reflog, ReflogEntry};

/// Pseudo-refs git keeps as files even in a reftable repository: they
/// hold more than one id, or more than an id.
pub const FILE_PSEUDO_REFS: [&str; 2] = ["FETCH_HEAD", "MERGE_HEAD"];

/// `packed-refs` header of the refs a table names directly.
const PACKED_HEADER: &[u8] = b"# pack-refs with: sorted \n";

/// One stack's content in the refs layer's terms.
pub struct StackView {
    /// `HEAD`, when the stack has it.
    pub head: Option<RefTarget>,
    /// Refs below `refs/` naming an object, with their peeled value.
    pub direct: Vec<PackedRef>,
    /// Symbolic refs below `refs/`.
    pub symbolic: Vec<LooseRef>,
    /// Root refs carried as pseudo-refs, by name.
    pub pseudo: BTreeMap<String, PseudoContent>,
    /// `HEAD` first, then by name.
    pub reflogs: Vec<Reflog>,
}

/// Reads the stack of `git_dir` (its `reftable/`).
pub fn read_view(git_dir: &Path, hash: HashKind) -> Result<StackView, RefsError> {
    read_stack(&git_dir.join(REFTABLE_DIR), hash).map(view)
}

/// The parts of a merged stack.
fn view(merged: Merged) -> StackView {
    let mut out = StackView {
        head: None,
        direct: Vec::new(),
        symbolic: Vec::new(),
        pseudo: BTreeMap::new(),
        reflogs: reflogs(merged.logs),
    };
    for RefRecord { name, value, .. } in merged.refs {
        let (target, peeled) = match value {
            RefValue::Deletion => continue,
            RefValue::Direct(id) => (RefTarget::Direct(id), None),
            RefValue::Peeled { value, peeled } => (RefTarget::Direct(value), Some(peeled)),
            RefValue::Symbolic(to) => (RefTarget::Symbolic(to), None),
        };
        if name == "HEAD" {
            out.head = Some(target);
        } else if name.starts_with("refs/") {
            match target {
                RefTarget::Direct(id) => out.direct.push(PackedRef { name, id, peeled }),
                target => out.symbolic.push(LooseRef { name, target }),
            }
        } else if PSEUDO_REFS.contains(&name.as_str()) && !FILE_PSEUDO_REFS.contains(&&*name) {
            let content = match target {
                RefTarget::Symbolic(to) => PseudoContent::Symbolic(to),
                RefTarget::Direct(id) => PseudoContent::Lines(vec![IdLine {
                    id,
                    tail: b"\n".to_vec(),
                }]),
            };
            out.pseudo.insert(name, content);
        }
        // Other root refs are left out, as a files repository's other
        // top-level files are.
    }
    out
}

impl StackView {
    /// The direct refs as the content of a `packed-refs` file, if any.
    pub fn packed(&mut self) -> Option<PackedRefs> {
        (!self.direct.is_empty()).then(|| PackedRefs {
            header: Some(PACKED_HEADER.to_vec()),
            entries: std::mem::take(&mut self.direct),
        })
    }

    /// The table's pseudo-refs plus `files` (those git keeps as files),
    /// in [`PSEUDO_REFS`] order.
    pub fn pseudo_refs(&mut self, mut files: Vec<PseudoRef>) -> Vec<PseudoRef> {
        files.extend(
            std::mem::take(&mut self.pseudo)
                .into_iter()
                .map(|(name, content)| PseudoRef { name, content }),
        );
        files.sort_by_key(|p| PSEUDO_REFS.iter().position(|n| *n == p.name));
        files
    }
}

/// The log records (by ref, newest first) as reflogs (oldest first) of
/// `HEAD` and the refs below `refs/`. A record whose two ids are null is
/// git's mark of a reflog that exists with no entry yet: the reflog is
/// kept, empty.
fn reflogs(logs: Vec<LogRecord>) -> Vec<Reflog> {
    let mut out: Vec<Reflog> = Vec::new();
    for record in logs {
        let Some(update) = record.update else {
            continue;
        };
        if record.refname != "HEAD" && !record.refname.starts_with("refs/") {
            continue;
        }
        if out.last().is_none_or(|log| log.name != record.refname) {
            out.push(Reflog {
                name: record.refname.clone(),
                entries: Vec::new(),
            });
        }
        let marker = update.old.is_null() && update.new.is_null();
        if !marker {
            let log = out.last_mut().expect("pushed above");
            log.entries.push(ReflogEntry {
                old: update.old,
                new: update.new,
                tail: tail_of(&update),
            });
        }
    }
    for log in &mut out {
        log.entries.reverse();
    }
    out
}
