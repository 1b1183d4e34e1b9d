//! MIRROR's refs made to mirror DEST's, translated: branches, tags, notes
//! and replace refs (`refs/heads/`, `refs/tags/`, `refs/notes/`,
//! `refs/replace/`), and `HEAD`.
//!
//! For each such ref of DEST, MIRROR's ref of the same (translated) name is
//! created or moved to the SHA-1 of DEST's value; a replace ref's name is
//! translated too (`refs/replace/<sha1>`); a notes ref DEST points at the
//! commit `--rekey-notes` put on top of the translated notes gets the
//! SHA-1 of the commit it stands on. Whether MIRROR's current value may be
//! replaced is decided by what DEST knows of it, never by guessing:
//!
//! - an object DEST's map knows: it is history DEST has (from SOURCE or an
//!   earlier export), so DEST's value wins, and a ref of these namespaces
//!   that DEST no longer has is deleted;
//! - an object the map does not know: commits were made in MIRROR that
//!   DEST never saw. Where DEST has the ref too, both sides moved it, and
//!   the export is refused before anything is written
//!   ([`check_divergence`]); where DEST does not, the ref is MIRROR's own
//!   and is left alone, as is every ref outside these namespaces; both
//!   kinds are reported.
//!
//! The refs are changed under git's ref locks, comparing each with the
//! value read at the start (`refs::update_refs`): a ref someone moved in
//! between stops the update, which changes nothing.
//!
//! A DEST converted with a ref selection mirrors only the refs it keeps:
//! both sides' snapshots are cut down to them first, and MIRROR's others
//! ([`left_out`]) are left alone whatever they name.

use std::collections::BTreeMap;

use super::error::{DivergedRef, ExportError, ExportRefusal};
use super::sha1_names::Names;
use crate::hash::{HashKind, ObjectId};
use crate::refs::rehash_refs::REHASH_PREFIX;
use crate::refs::{RefSelection, RefTarget, RefUpdate, SourceRefs};

/// The namespaces an export keeps in line with DEST.
const MIRRORED: [&str; 4] = ["refs/heads/", "refs/tags/", "refs/notes/", "refs/replace/"];
const REPLACE: &str = "refs/replace/";

fn mirrored(name: &str) -> bool {
    MIRRORED.iter().any(|ns| name.starts_with(ns))
}

/// What to do with MIRROR's refs.
#[derive(Debug, Default)]
pub struct RefPlan {
    pub updates: Vec<RefUpdate>,
    pub created: usize,
    pub moved: usize,
    pub deleted: usize,
    /// MIRROR's own refs, left as they are.
    pub left_alone: Vec<String>,
}

/// Refuses, before anything is written, when a ref DEST has names an
/// object in MIRROR that DEST's map does not know: both sides gained
/// commits. Refs whose name cannot be translated yet (a replace ref of
/// an object made in DEST, which MIRROR cannot have a ref for) are left
/// to [`plan_refs`].
pub fn check_divergence(
    dest: &SourceRefs,
    mirror: &SourceRefs,
    names: &Names,
) -> Result<(), ExportError> {
    let mirror_refs: BTreeMap<String, RefTarget> = mirror.effective_refs().into_iter().collect();
    let mut diverged = Vec::new();
    for (name, _) in dest
        .effective_refs()
        .into_iter()
        .filter(|(n, _)| mirrored(n))
    {
        let Some(name) = mirror_name(&name, names) else {
            continue;
        };
        if let Some(RefTarget::Direct(m)) = mirror_refs.get(&name)
            && !names.knows_sha1(m)
        {
            diverged.push(DivergedRef { name, mirror: *m });
        }
    }
    if diverged.is_empty() {
        Ok(())
    } else {
        Err(ExportRefusal::Diverged(diverged).into())
    }
}

/// The updates that make MIRROR's refs DEST's, once every object of DEST
/// has its SHA-1 name and MIRROR has every object (`in_mirror` says which
/// it has: a ref is never pointed at one it lacks).
pub fn plan_refs(
    dest: &SourceRefs,
    mirror: &SourceRefs,
    names: &Names,
    in_mirror: &dyn Fn(&ObjectId) -> bool,
) -> Result<RefPlan, ExportError> {
    let mut plan = RefPlan::default();
    let mut mirror_refs: BTreeMap<String, RefTarget> =
        mirror.effective_refs().into_iter().collect();
    let mut diverged = Vec::new();
    for (name, target) in dest
        .effective_refs()
        .into_iter()
        .filter(|(n, _)| mirrored(n))
    {
        let new = translate_target(&name, &target, names)?;
        if let RefTarget::Direct(id) = &new
            && !in_mirror(id)
        {
            return Err(ref_target_missing_id(&name, target.id().unwrap_or(*id)));
        }
        let mirror_name = mirror_name(&name, names).ok_or_else(|| ref_target_missing(&name))?;
        let old = mirror_refs.remove(&mirror_name);
        match &old {
            Some(old) if *old == new => continue,
            Some(RefTarget::Direct(m)) if !names.knows_sha1(m) => {
                diverged.push(DivergedRef {
                    name: mirror_name,
                    mirror: *m,
                });
                continue;
            }
            Some(_) => plan.moved += 1,
            None => plan.created += 1,
        }
        plan.updates.push(RefUpdate {
            name: mirror_name,
            old,
            new: Some(new),
        });
    }
    if !diverged.is_empty() {
        return Err(ExportRefusal::Diverged(diverged).into());
    }
    // What is left of MIRROR's refs DEST does not have.
    for (name, old) in mirror_refs {
        match &old {
            RefTarget::Direct(m) if mirrored(&name) && names.knows_sha1(m) => {
                plan.deleted += 1;
                plan.updates.push(RefUpdate {
                    name,
                    old: Some(old),
                    new: None,
                });
            }
            // MIRROR's own statements (`export-sha1 --attest`).
            _ if name.starts_with(REHASH_PREFIX) => {}
            _ => plan.left_alone.push(name),
        }
    }
    let head = translate_target("HEAD", &dest.head, names)?;
    if mirror.head != head {
        plan.updates.push(RefUpdate {
            name: "HEAD".into(),
            old: Some(mirror.head.clone()),
            new: Some(head),
        });
    }
    Ok(plan)
}

/// MIRROR's refs the selection leaves out, sorted.
pub fn left_out(mirror: &SourceRefs, selection: &RefSelection) -> Vec<String> {
    let kept = mirror.kept_ref_names(selection);
    mirror
        .effective_refs()
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| kept.binary_search(name).is_err() && !name.starts_with(REHASH_PREFIX))
        .collect()
}

/// MIRROR's name for DEST's ref `name`: the same, but for a replace ref
/// named after the object it replaces (`None` while that has no SHA-1).
fn mirror_name(name: &str, names: &Names) -> Option<String> {
    match name
        .strip_prefix(REPLACE)
        .and_then(|hex| ObjectId::from_hex(HashKind::Sha256, hex.as_bytes()))
    {
        Some(replaced) => names
            .sha1_of(&replaced)
            .map(|sha1| format!("{REPLACE}{sha1}")),
        None => Some(name.to_string()),
    }
}

/// DEST's value in SHA-1. A commit `--rekey-notes` created stands for the
/// translated notes commit it was put on.
fn translate_target(
    name: &str,
    target: &RefTarget,
    names: &Names,
) -> Result<RefTarget, ExportError> {
    let RefTarget::Direct(id) = target else {
        return Ok(target.clone());
    };
    let value = match names.created(id).and_then(|c| c.base) {
        Some(base) => base,
        None => *id,
    };
    names
        .sha1_of(&value)
        .map(RefTarget::Direct)
        .ok_or_else(|| ref_target_missing_id(name, *id))
}

fn ref_target_missing(name: &str) -> ExportError {
    let id = name
        .strip_prefix(REPLACE)
        .and_then(|hex| ObjectId::from_hex(HashKind::Sha256, hex.as_bytes()))
        .unwrap_or(HashKind::Sha256.null_id());
    ref_target_missing_id(name, id)
}

fn ref_target_missing_id(name: &str, id: ObjectId) -> ExportError {
    ExportRefusal::RefTargetMissing {
        refname: name.to_string(),
        id,
    }
    .into()
}
