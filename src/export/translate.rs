//! One object of DEST in its SHA-1 form: its body translated back
//! (`translate_object` from SHA-256 to SHA-1, git's
//! `object-file-convert.c` run the other way) and its SHA-1 name, which is
//! the name git's compat mode gives it (`extensions.compatObjectFormat`).

use super::error::ExportRefusal;
use super::sha1_names::Names;
use crate::hash::{HashKind, ObjectId};
use crate::object::{ObjectKind, sha1_object_id};
use crate::translate::{TranslateOptions, translate_object};

/// The SHA-1 body of the object `id` (`kind`, SHA-256 body `body`) into
/// `out`, and its SHA-1 name. Every id it references must be named.
pub fn sha1_form(
    id: ObjectId,
    kind: ObjectKind,
    body: &[u8],
    names: &Names,
    opts: TranslateOptions,
    out: &mut Vec<u8>,
) -> Result<ObjectId, ExportRefusal> {
    let refuse = |reason: String| ExportRefusal::Untranslatable { id, kind, reason };
    let map = |id: &ObjectId| names.sha1_of(id);
    translate_object(
        kind,
        body,
        HashKind::Sha256,
        HashKind::Sha1,
        &map,
        opts,
        out,
    )
    .map_err(|e| refuse(e.to_string()))?;
    sha1_object_id(kind, out).map_err(|e| refuse(e.to_string()))
}

/// The SHA-1 name of a blob: the same bytes hashed the other way.
pub fn blob_sha1(id: ObjectId, body: &[u8]) -> Result<ObjectId, ExportRefusal> {
    sha1_object_id(ObjectKind::Blob, body).map_err(|e| ExportRefusal::Untranslatable {
        id,
        kind: ObjectKind::Blob,
        reason: e.to_string(),
    })
}
