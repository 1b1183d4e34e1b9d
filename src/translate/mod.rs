//! Byte-level SHA-1 <-> SHA-256 translation of object bodies
//! (docs/translation.md, mirroring git's `object-file-convert.c`).
//!
//! Only the id-bearing parts are rewritten; every other byte is copied, so
//! the same functions with `from` and `to` swapped undo a translation when
//! the conditions of docs/translation.md, "Round trips", hold. Anything that could hide an id and is not
//! understood is refused (fail closed), except unknown commit header fields,
//! which carry no id and are copied verbatim unless `strict_headers` is set
//! (a git-rehash policy: git has no answer there).

mod commit;
mod error;
mod tag;
mod tree;

#[cfg(test)]
mod consistency;
#[cfg(test)]
mod reversibility;
#[cfg(test)]
mod test_support;

pub use commit::translate_commit;
pub use error::TranslateError;
pub use tag::{SIGNATURE_STARTS, translate_tag, translate_tag_with_unterminated_signature};
pub use tree::{translate_tree, translate_tree_by};

use std::sync::LazyLock;

use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;

/// Looks up the `to`-side id of a `from`-side id (None = no pair).
pub trait IdMapper {
    fn map_id(&self, id: &ObjectId) -> Option<ObjectId>;
}

impl<F: Fn(&ObjectId) -> Option<ObjectId>> IdMapper for F {
    fn map_id(&self, id: &ObjectId) -> Option<ObjectId> {
        self(id)
    }
}

/// Policy knobs of a translation.
#[derive(Clone, Copy, Debug, Default)]
pub struct TranslateOptions {
    /// Refuse commits with header fields git does not know, as git does.
    pub strict_headers: bool,
    /// Copy a `mergetag` field as it is, old hash and signature included,
    /// when the tag it embeds names an object that has no name in the
    /// other hash (git-rehash's `--unmapped-mergetags=verbatim`: git has
    /// no translation for it). Translating back, a field whose object line
    /// already holds an id of the target hash is copied as it is too, so
    /// the round trip is exact. Set per commit: the map records which.
    pub verbatim_mergetags: bool,
}

/// What a translation noticed that the caller may want to count.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TranslateNotes {
    /// Names of unknown commit header fields copied verbatim (e.g.
    /// `change-id`), each name once per object, in order of appearance.
    pub unknown_headers: Vec<String>,
    /// `mergetag` fields copied as they are (`verbatim_mergetags`).
    pub verbatim_mergetags: u32,
}

/// Translates one object body from `from` names to `to` names into `out`
/// (cleared first). Blobs are copied: their bodies hold no ids.
pub fn translate_object(
    kind: ObjectKind,
    body: &[u8],
    from: HashKind,
    to: HashKind,
    map: &dyn IdMapper,
    opts: TranslateOptions,
    out: &mut Vec<u8>,
) -> Result<TranslateNotes, TranslateError> {
    match kind {
        ObjectKind::Blob => {
            out.clear();
            out.extend_from_slice(body);
        }
        ObjectKind::Tree => translate_tree(body, from, to, map, out)?,
        ObjectKind::Commit => return translate_commit(body, from, to, map, opts, out),
        ObjectKind::Tag => translate_tag(body, from, to, map, out)?,
    }
    Ok(TranslateNotes::default())
}

/// The ids git knows without a table, per kind, in matching order. Built
/// once: `empty_tree()`/`empty_blob()` parse hex, too slow per tree entry.
static WELL_KNOWN: LazyLock<[[ObjectId; 3]; 2]> = LazyLock::new(|| {
    [HashKind::Sha1, HashKind::Sha256].map(|k| [k.null_id(), k.empty_tree(), k.empty_blob()])
});

/// The `to` id of `id` when it is one of the ids git knows without a
/// table (the all-zero id, the empty tree and blob).
#[inline]
fn well_known_id(id: &ObjectId, from: HashKind, to: HashKind) -> Option<ObjectId> {
    let known = |kind: HashKind| match kind {
        HashKind::Sha1 => &WELL_KNOWN[0],
        HashKind::Sha256 => &WELL_KNOWN[1],
    };
    // Every tree entry comes through here: the first byte rules out the
    // three well-known ids before any whole-id compare (a memcmp call).
    let first = id.as_bytes()[0];
    known(from)
        .iter()
        .position(|w| w.as_bytes()[0] == first && w == id)
        .map(|i| known(to)[i])
}

/// Maps `id` (a `from` id) to its `to` id. The all-zero id and the empty
/// tree and blob are answered here: git seeds those pairs in memory and never
/// stores them, so a map built from real objects does not know them.
/// `Ok(None)` means "no pair"; the caller names the field in its error.
fn map_id(
    map: &dyn IdMapper,
    id: &ObjectId,
    from: HashKind,
    to: HashKind,
) -> Result<Option<ObjectId>, TranslateError> {
    map_id_by(id, from, to, || map.map_id(id))
}

/// [`map_id`] with the pair looked up by `lookup`, which runs only for an
/// id git does not know without a table.
#[inline]
pub fn map_id_by(
    id: &ObjectId,
    from: HashKind,
    to: HashKind,
    lookup: impl FnOnce() -> Option<ObjectId>,
) -> Result<Option<ObjectId>, TranslateError> {
    if let Some(known) = well_known_id(id, from, to) {
        return Ok(Some(known));
    }
    match lookup() {
        Some(mapped) if mapped.kind() != to => Err(TranslateError::MappedKindMismatch {
            id: *id,
            mapped,
            expected: to,
        }),
        other => Ok(other),
    }
}

/// Maps the id of a hex field, with the error naming `field`.
fn map_field(
    map: &dyn IdMapper,
    id: &ObjectId,
    from: HashKind,
    to: HashKind,
    field: &'static str,
) -> Result<ObjectId, TranslateError> {
    map_id(map, id, from, to)?.ok_or(TranslateError::UnmappedId { field, id: *id })
}

/// Index of the first LF at or after `from`.
fn lf_from(body: &[u8], from: usize) -> Option<usize> {
    body[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| from + i)
}
