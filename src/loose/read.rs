//! Reading loose objects and listing a loose object directory (git's
//! `loose_object_info()` and `for_each_loose_file_in_objdir()`).

use std::path::{Path, PathBuf};

use flate2::Decompress;

use crate::hash::{HashKind, ObjectId};
use crate::object::{HeaderError, ObjectKind, parse_object_header};
use crate::zlib::{ZlibError, expect_end, inflate_until};

/// Bytes inflated before the header must have ended (git allows 32).
const HEADER_WINDOW: usize = 64;

/// A loose object directory or file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum LooseError {
    #[error("cannot read {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("loose object {id} ({path}): zlib error: {reason}")]
    Zlib {
        path: PathBuf,
        id: ObjectId,
        reason: String,
    },
    #[error("loose object {id} ({path}) is truncated")]
    Truncated { path: PathBuf, id: ObjectId },
    #[error("loose object {id} ({path}) has a bad header")]
    Header {
        path: PathBuf,
        id: ObjectId,
        #[source]
        source: HeaderError,
    },
    #[error("loose object {id} ({path}) has {actual} body bytes, its header says {expected}")]
    SizeMismatch {
        path: PathBuf,
        id: ObjectId,
        expected: u64,
        /// The body size, or a lower bound when the stream was longer.
        actual: u64,
    },
    #[error("loose object {id} ({path}) declares {size} bytes, more than this machine can address")]
    TooLarge {
        path: PathBuf,
        id: ObjectId,
        size: u64,
    },
}

/// `objects_dir/xx/yyyy...` for `id`.
pub fn loose_path(objects_dir: &Path, id: &ObjectId) -> PathBuf {
    let hex = id.to_hex();
    objects_dir.join(&hex[..2]).join(&hex[2..])
}

/// Every loose object name under `objects_dir`, sorted. Anything that is
/// not a two-hex-digit directory holding full-length hex file names is
/// ignored (`pack/`, `info/`, `tmp_obj_*`, editors' droppings).
pub fn list_loose(objects_dir: &Path, hash: HashKind) -> Result<Vec<ObjectId>, LooseError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| LooseError::Io { path, source }
    };
    let mut ids = Vec::new();
    for fan in std::fs::read_dir(objects_dir).map_err(io(objects_dir))? {
        let fan = fan.map_err(io(objects_dir))?;
        let prefix = fan.file_name();
        let Some(prefix) = prefix.to_str().filter(|p| p.len() == 2 && is_hex(p)) else {
            continue;
        };
        if !fan.file_type().map_err(io(&fan.path()))?.is_dir() {
            continue;
        }
        let dir = fan.path();
        for file in std::fs::read_dir(&dir).map_err(io(&dir))? {
            let file = file.map_err(io(&dir))?;
            let name = file.file_name();
            let Some(rest) = name.to_str().filter(|n| n.len() == hash.hex_len() - 2) else {
                continue;
            };
            let full = format!("{prefix}{rest}");
            if let Some(id) = ObjectId::from_hex(hash, full.as_bytes()) {
                ids.push(id);
            }
        }
    }
    ids.sort_unstable();
    ids.dedup(); // upper- and lower-case duplicates on odd file systems
    Ok(ids)
}

fn is_hex(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Reads and inflates the loose object `id`: parses the header, checks the
/// body has exactly the declared length. The buffer grows with the inflated
/// data, never past the declared length.
pub fn read_loose(objects_dir: &Path, id: &ObjectId) -> Result<(ObjectKind, Vec<u8>), LooseError> {
    let path = loose_path(objects_dir, id);
    let compressed = std::fs::read(&path).map_err(|source| LooseError::Io {
        path: path.clone(),
        source,
    })?;
    decode_loose(&compressed, &path, id)
}

fn decode_loose(
    compressed: &[u8],
    path: &Path,
    id: &ObjectId,
) -> Result<(ObjectKind, Vec<u8>), LooseError> {
    let zlib = |e: ZlibError| match e {
        ZlibError::Corrupt(reason) => LooseError::Zlib {
            path: path.to_owned(),
            id: *id,
            reason,
        },
        ZlibError::Truncated => LooseError::Truncated {
            path: path.to_owned(),
            id: *id,
        },
        ZlibError::TooLong { at_least } => LooseError::Zlib {
            path: path.to_owned(),
            id: *id,
            reason: format!("stream yields more than {at_least} bytes"),
        },
    };
    let mut z = Decompress::new(true);
    let mut data = Vec::with_capacity(HEADER_WINDOW);
    // The header ends within the first HEADER_WINDOW inflated bytes.
    let ended = inflate_until(&mut z, compressed, &mut data, HEADER_WINDOW).map_err(zlib)?;
    let (kind, declared, header_len) =
        parse_object_header(&data).map_err(|source| LooseError::Header {
            path: path.to_owned(),
            id: *id,
            source,
        })?;
    let total = usize::try_from(declared)
        .ok()
        .and_then(|d| d.checked_add(header_len))
        .ok_or_else(|| LooseError::TooLarge {
            path: path.to_owned(),
            id: *id,
            size: declared,
        })?;
    let mismatch = |actual: u64| LooseError::SizeMismatch {
        path: path.to_owned(),
        id: *id,
        expected: declared,
        actual,
    };
    let body_len = |total: u64| total.saturating_sub(header_len as u64);
    if data.len() > total {
        return Err(mismatch(body_len(data.len() as u64)));
    }
    if !ended {
        let result = inflate_until(&mut z, compressed, &mut data, total).and_then(|ended| {
            if ended {
                Ok(())
            } else {
                expect_end(&mut z, compressed, data.len() as u64)
            }
        });
        match result {
            Err(ZlibError::TooLong { at_least }) => return Err(mismatch(body_len(at_least))),
            other => other.map_err(zlib)?,
        }
    }
    if data.len() != total {
        return Err(mismatch(body_len(data.len() as u64)));
    }
    data.drain(..header_len);
    Ok((kind, data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn decode(raw: &[u8]) -> Result<(ObjectKind, Vec<u8>), LooseError> {
        decode_loose(&deflate(raw), Path::new("x"), &HashKind::Sha1.null_id())
    }

    #[test]
    fn decodes_and_checks_length() {
        assert_eq!(
            decode(b"blob 5\0hello").unwrap(),
            (ObjectKind::Blob, b"hello".to_vec())
        );
        assert_eq!(decode(b"tree 0\0").unwrap(), (ObjectKind::Tree, Vec::new()));
        assert!(matches!(
            decode(b"blob 6\0hello"),
            Err(LooseError::SizeMismatch {
                expected: 6,
                actual: 5,
                ..
            })
        ));
        assert!(matches!(
            decode(b"blob 4\0hello"),
            Err(LooseError::SizeMismatch { expected: 4, .. })
        ));
        assert!(matches!(
            decode(b"blob 4 hello"),
            Err(LooseError::Header { .. })
        ));
        assert!(matches!(
            decode(b"blub 5\0hello"),
            Err(LooseError::Header { .. })
        ));
        let big = [b"blob 100000\0".as_slice(), &[b'x'; 100_000]].concat();
        assert_eq!(decode(&big).unwrap().1.len(), 100_000);
    }

    #[test]
    fn forged_length_does_not_reserve_memory() {
        let r = decode(b"blob 999999999999\0hello");
        assert!(matches!(
            r,
            Err(LooseError::SizeMismatch { .. }) | Err(LooseError::TooLarge { .. })
        ));
        let z = deflate(b"blob 5\0hello");
        assert!(matches!(
            decode_loose(&z[..z.len() - 2], Path::new("x"), &HashKind::Sha1.null_id()),
            Err(LooseError::Truncated { .. })
        ));
    }
}
