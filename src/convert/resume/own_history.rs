//! A DEST with history of its own is not a conversion's to update.
//!
//! `convert` brings DEST's refs in line with SOURCE's. That is right for a
//! SHA-256 copy of a SHA-1 primary, and wrong once commits are made in
//! DEST: its branches would be moved back to SOURCE's, and what git wrote
//! into DEST could be lost. So a later run refuses, and says why, when
//! - `git-rehash export-sha1` recorded pairs of objects made in DEST (the
//!   map's `exported` table): DEST is the primary now, and
//!   `export-sha1` keeps the SHA-1 side in sync;
//! - or one of DEST's branches, tags, notes or replace refs names an
//!   object that no conversion wrote (neither a map row nor an object
//!   `--rekey-notes` created): commits were made in DEST.
//!
//! git-rehash never guesses which side's history wins (docs/interop.md,
//! "When both sides gain commits"); `--force` starts a new conversion.

use std::path::Path;

use crate::convert::error::ConvertError;
use crate::convert::error::DestState;
use crate::idmap::{IdMap, open_shared_maps};
use crate::refs::read_source_refs;
use crate::repo::dest_layout;

/// The namespaces whose refs must all be a conversion's.
const CONVERTED: [&str; 4] = ["refs/heads/", "refs/tags/", "refs/notes/", "refs/replace/"];

/// Refuses a DEST that has history of its own (see the module comment).
pub fn refuse_own_history(dest: &Path, map: &IdMap) -> Result<(), ConvertError> {
    let refuse = |reason: String| -> ConvertError {
        DestState::OwnHistory {
            path: dest.to_path_buf(),
            reason,
        }
        .into()
    };
    let exported = map.exported_count()?;
    if exported > 0 {
        return Err(refuse(format!(
            "`git-rehash export-sha1` exported {exported} object(s) made in it, so it is the \
             primary now; keep the SHA-1 side in sync with `git-rehash export-sha1`"
        )));
    }
    // Until its first run finished DEST has no config: nothing was made in it.
    if !dest_layout::config(dest).is_file() {
        return Ok(());
    }
    let refs = read_source_refs(dest, map.direction()?.dest())?;
    let created = map.created()?;
    // A shared DEST's refs may name the pool's objects: its conversion
    // wrote them.
    let pools = open_shared_maps(map)?;
    let theirs = refs
        .effective_refs()
        .into_iter()
        .filter(|(name, _)| CONVERTED.iter().any(|ns| name.starts_with(ns)))
        .filter_map(|(name, target)| target.id().map(|id| (name, id)));
    for (name, id) in theirs {
        let mut converted = map.lookup(&id)?.is_some() || created.iter().any(|c| c.name == id);
        for pool in &pools {
            converted = converted || pool.lookup(&id)?.is_some();
        }
        if !converted {
            return Err(refuse(format!(
                "{name} names {id}, which no conversion wrote (commits were made in DEST); \
                 export DEST's history with `git-rehash export-sha1` instead"
            )));
        }
    }
    Ok(())
}
