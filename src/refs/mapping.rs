//! Translating the ids refs name: the caller's lookup plus the checks
//! every translated ref needs (right hash kind, the null id kept null).

use super::error::RefsError;
use crate::hash::{HashKind, ObjectId};

/// The caller's SHA-1 -> SHA-256 lookup (or any `from` -> `to`).
pub type TranslateId<'a> = &'a dyn Fn(&ObjectId) -> Option<ObjectId>;

/// Wraps the caller's map with the destination hash kind.
pub(crate) struct Translator<'a> {
    pub to: HashKind,
    pub map: TranslateId<'a>,
}

impl Translator<'_> {
    /// Translates an id a ref must have: no mapping is an error.
    pub fn required(&self, refname: &str, id: &ObjectId) -> Result<ObjectId, RefsError> {
        self.optional(refname, id)?
            .ok_or_else(|| RefsError::Unmapped {
                refname: refname.to_string(),
                id: *id,
            })
    }

    /// Translates an id that may legitimately be gone (reflogs, pseudo-refs):
    /// `Ok(None)` when unmapped. The all-zero id ("no object" in reflogs)
    /// becomes the all-zero id of `to`, without asking the map.
    pub fn optional(&self, refname: &str, id: &ObjectId) -> Result<Option<ObjectId>, RefsError> {
        if id.is_null() {
            return Ok(Some(self.to.null_id()));
        }
        match (self.map)(id) {
            Some(got) if got.kind() != self.to => Err(RefsError::WrongKind {
                refname: refname.to_string(),
                from: *id,
                got,
                expected: self.to,
            }),
            other => Ok(other),
        }
    }
}
