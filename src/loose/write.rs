//! Writing a loose object into DEST (`objects/xx/yyyy...`, a zlib stream of
//! `"<type> <len>\0" body`). Only the few objects a conversion creates
//! itself (`--rekey-notes`) are written this way; everything translated
//! goes into packs.

use std::io::Write;
use std::path::Path;

use flate2::Compression;
use flate2::write::ZlibEncoder;

use super::loose_path;
use crate::durable::{self, PathError};
use crate::hash::ObjectId;
use crate::object::{ObjectKind, object_header};

/// Stores `body` as the loose object `id` (its name in DEST's hash, which
/// the caller computed: a SHA-1 name with collision detection) unless DEST
/// has it already. Durable on return (temp file, fsync, rename), so a ref
/// written afterwards never names a missing object.
pub fn write_loose(
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
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::HashKind;
    use crate::object::object_id;

    #[test]
    fn written_object_reads_back_in_either_hash() {
        let dir = tempfile::tempdir().unwrap();
        for hash in [HashKind::Sha256, HashKind::Sha1] {
            let id = object_id(hash, ObjectKind::Blob, b"hello\n").unwrap();
            write_loose(dir.path(), id, ObjectKind::Blob, b"hello\n").unwrap();
            write_loose(dir.path(), id, ObjectKind::Blob, b"hello\n").unwrap();
            let (kind, body) = crate::loose::read_loose(dir.path(), &id).unwrap();
            assert_eq!(
                (kind, body.as_slice()),
                (ObjectKind::Blob, b"hello\n".as_slice())
            );
        }
    }
}
