//! Object naming: `H(type SP decimal-length NUL body)`.
//!
//! SHA-1 names are computed with collision detection (git's sha1dc): the
//! SHA-1 -> SHA-256 map is a long-term trust anchor, so an object built by a
//! collision attack must stop the conversion, exactly as git dies on it.

use sha2::Digest as _;

use super::{ObjectKind, object_header};
use crate::hash::{HashKind, ObjectId};

/// The collision detector flagged the bytes of an object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("SHA-1 appears to be part of a collision attack: {digest}")]
pub struct Sha1Collision {
    /// The plain (colliding) SHA-1 digest of the flagged bytes.
    pub digest: ObjectId,
}

/// The collision-checked SHA-1 name of an object.
pub fn sha1_object_id(kind: ObjectKind, body: &[u8]) -> Result<ObjectId, Sha1Collision> {
    let mut hasher = sha1dc::Hasher::new();
    #[cfg(test)]
    if let Some(raw) = super::collision_hook::substitute(body) {
        hasher.update(&raw);
    } else {
        hasher.update(&object_header(kind, body.len()));
        hasher.update(body);
    }
    #[cfg(not(test))]
    {
        hasher.update(&object_header(kind, body.len()));
        hasher.update(body);
    }
    let to_id = |d: sha1dc::Digest| {
        ObjectId::from_raw(HashKind::Sha1, d.as_ref()).expect("sha1dc digests are 20 bytes")
    };
    hasher.finalize().map(to_id).map_err(|c| Sha1Collision {
        digest: to_id(c.digest()),
    })
}

/// The SHA-256 name of an object.
pub fn sha256_object_id(kind: ObjectKind, body: &[u8]) -> ObjectId {
    let mut hasher = sha2::Sha256::new();
    hasher.update(object_header(kind, body.len()));
    hasher.update(body);
    ObjectId::Sha256(hasher.finalize().into())
}

/// The name of an object under `hash`.
pub fn object_id(hash: HashKind, kind: ObjectKind, body: &[u8]) -> Result<ObjectId, Sha1Collision> {
    match hash {
        HashKind::Sha1 => sha1_object_id(kind, body),
        HashKind::Sha256 => Ok(sha256_object_id(kind, body)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_objects_match_gits_constants() {
        for hash in [HashKind::Sha1, HashKind::Sha256] {
            assert_eq!(
                object_id(hash, ObjectKind::Tree, b"").unwrap(),
                hash.empty_tree()
            );
            assert_eq!(
                object_id(hash, ObjectKind::Blob, b"").unwrap(),
                hash.empty_blob()
            );
        }
    }
}
