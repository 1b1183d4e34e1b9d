//! Test rows: distinct, real object name pairs for map tests.

use super::row::MapRow;
use crate::object::ObjectKind;
use crate::object::{sha1_object_id, sha256_object_id};

/// The names of the blob whose content is `n` in decimal.
pub fn row(n: u32) -> MapRow {
    let body = n.to_string();
    MapRow {
        sha1: sha1_object_id(ObjectKind::Blob, body.as_bytes()).unwrap(),
        sha256: sha256_object_id(ObjectKind::Blob, body.as_bytes()),
        kind: ObjectKind::Blob,
    }
}
