//! DEST's own signed statement (`refs/rehash/attestation`, attest/) across
//! a later run. The run makes DEST's refs SOURCE's, and this ref is not
//! SOURCE's to replace: its value is read before the refs are written,
//! noted in the map (`meta` key [`NOTED`]) so that a run killed while a
//! reftable stack is replaced still knows it, and pointed at again once
//! SOURCE's refs are written; the note is cleared after.

use std::path::{Path, PathBuf};

use crate::convert::error::ConvertError;
use crate::convert::phase;
use crate::hash::ObjectId;
use crate::idmap::IdMap;
use crate::pipeline::StopPoints;
use crate::refs::rehash_refs::{ATTESTATION, attestation_of};
use crate::refs::{RefStorage, point_refs};

/// The `meta` key of the statement a run is carrying over.
const NOTED: &str = "kept_statement";

/// DEST's statement before its refs are rewritten: the ref's value, or
/// the one a killed run noted; noted in turn.
pub fn before_refs(dest: &Path, map: &IdMap) -> Result<Option<ObjectId>, ConvertError> {
    let hash = map.direction()?.dest();
    let noted = map
        .meta(NOTED)?
        .and_then(|hex| ObjectId::from_hex(hash, hex.as_bytes()));
    let kept = attestation_of(dest, hash)?.or(noted);
    if let Some(id) = kept {
        map.set_meta(NOTED, &id.to_hex())?;
    }
    Ok(kept)
}

/// Points `refs/rehash/attestation` at `kept` again in DEST's ref
/// backend `storage`; returns the files written.
pub fn after_refs(
    dest: &Path,
    storage: RefStorage,
    map: &IdMap,
    kept: Option<ObjectId>,
    stops: &StopPoints,
) -> Result<Vec<PathBuf>, ConvertError> {
    let Some(id) = kept else {
        return Ok(Vec::new());
    };
    stops.kill_point(phase::STATEMENT_KEPT);
    let files = point_refs(dest, storage, &[(ATTESTATION.to_string(), id)])?;
    map.set_meta(NOTED, "")?;
    Ok(files)
}
