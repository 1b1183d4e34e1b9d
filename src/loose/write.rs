//! Writing a loose object (`objects/xx/yyyy...`, a zlib stream of
//! `"<type> <len>\0" body`). Only the few objects git-rehash creates
//! itself (`--rekey-notes`, the signed statements of `attest`) are written
//! this way; everything translated goes into packs.

use std::io::Write;
use std::path::Path;

use flate2::Compression;
use flate2::write::ZlibEncoder;

use super::loose_path;
use crate::durable::{self, PathError};
use crate::hash::ObjectId;
use crate::object::{ObjectKind, object_header, sha256_object_id};

/// Stores `body` as a loose SHA-256 object unless DEST has it already;
/// returns its name. Durable on return (temp file, fsync, rename), so a
/// ref written afterwards never names a missing object.
pub fn write_loose(
    objects_dir: &Path,
    kind: ObjectKind,
    body: &[u8],
) -> Result<ObjectId, PathError> {
    let id = sha256_object_id(kind, body);
    write_loose_named(objects_dir, id, kind, body)?;
    Ok(id)
}

/// Stores `body` as the loose object `id` (its name in either hash, which
/// the caller has computed from `kind` and `body`) unless the store has it
/// already. Durable on return, like [`write_loose`].
pub fn write_loose_named(
    objects_dir: &Path,
    id: ObjectId,
    kind: ObjectKind,
    body: &[u8],
) -> Result<(), PathError> {
    let path = loose_path(objects_dir, &id);
    if path.is_file() {
        return Ok(());
    }
    let dir = path.parent().expect("loose paths have a fan-out directory");
    std::fs::create_dir_all(dir).map_err(PathError::at(dir))?;
    // git's own name for loose objects being written; `git gc` removes
    // leftovers, and so would a later run (it writes the same object).
    let tmp = dir.join(format!("tmp_obj_{}", &id.to_hex()[2..]));
    durable::write_file_via(&tmp, &path, |file| {
        let mut z = ZlibEncoder::new(file, Compression::default());
        z.write_all(&object_header(kind, body.len()))?;
        z.write_all(body)?;
        z.finish().map(drop)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_object_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let id = write_loose(dir.path(), ObjectKind::Blob, b"hello\n").unwrap();
        assert_eq!(
            write_loose(dir.path(), ObjectKind::Blob, b"hello\n").unwrap(),
            id
        );
        let (kind, body) = crate::loose::read_loose(dir.path(), &id).unwrap();
        assert_eq!(
            (kind, body.as_slice()),
            (ObjectKind::Blob, b"hello\n".as_slice())
        );
        // A SHA-1 store's object, named by the caller.
        let sha1 = crate::object::sha1_object_id(ObjectKind::Blob, b"hello\n").unwrap();
        write_loose_named(dir.path(), sha1, ObjectKind::Blob, b"hello\n").unwrap();
        let (_, body) = crate::loose::read_loose(dir.path(), &sha1).unwrap();
        assert_eq!(body, b"hello\n");
    }
}
