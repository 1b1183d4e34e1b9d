//! Publishing a written pack (git's `finish_tmp_packfile` in
//! `pack-write.c`): its `.rev` and `.idx` written beside the pack's
//! `fsync`, then the three renamed into place as
//! `pack-<hex of trailer>.{pack,rev,idx}`, the `.idx` last because git
//! discovers packs by their index.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::stream;
use crate::durable::{self, TempFiles};
use crate::hash::{HashKind, ObjectId};
use crate::pack::error::PackWriteError;
use crate::pack::hashfile::HashFile;
use crate::pack::index::reverse::write_rev_to;
use crate::pack::index::write::{IndexEntry, write_idx_to};

/// The published pack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackOutcome {
    pub pack_path: PathBuf,
    pub idx_path: PathBuf,
    pub rev_path: PathBuf,
    /// The pack trailer: the hash of every byte before it (also the file
    /// name stem).
    pub checksum: ObjectId,
    pub num_objects: u32,
    /// Size of the `.pack` file, trailer included.
    pub pack_size: u64,
}

impl PackOutcome {
    /// The file name without extension, `pack-<hex of the trailer>`.
    pub fn stem(&self) -> String {
        self.pack_path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("pack names are ASCII")
            .to_string()
    }
}

/// A `.pack` written, trailer included, under a temporary name; not yet
/// synced.
pub(crate) struct WrittenPack<'a> {
    pub dir: &'a Path,
    pub hash: HashKind,
    pub file: File,
    pub temp_pack: &'a Path,
    pub checksum: ObjectId,
    pub pack_size: u64,
    pub after_sync: AfterSync,
}

/// What becomes of a published pack's pages in the page cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AfterSync {
    /// Kept: a segment, which the fold reads whole soon after.
    KeepCached,
    /// Dropped: the folded pack, which this run does not read through
    /// again.
    DropCached,
}

/// Writes the `.rev` and `.idx` of `pack` from its `entries` (sorted by id
/// and checked) while the pack itself is synced (its `fsync` waits for
/// the disk, which the two small files need not wait behind), then
/// renames the three files into place, the `.idx` last (git finds a pack
/// by its index). `temps` holds the temporary pack and removes what is
/// left on failure.
pub(crate) fn publish(
    pack: WrittenPack<'_>,
    mut temps: TempFiles,
    entries: &[IndexEntry],
) -> Result<PackOutcome, PackWriteError> {
    let WrittenPack {
        dir,
        hash,
        file,
        temp_pack,
        checksum,
        pack_size,
        after_sync,
    } = pack;
    let (synced, indexes) = std::thread::scope(|scope| {
        let synced = scope.spawn(|| {
            let synced = file.sync_all();
            if after_sync == AfterSync::DropCached {
                stream::drop_cached(&file);
            }
            synced
        });
        let indexes = (|| {
            let temp_rev = write_temp(dir, "tmp_rev_", &mut temps, hash, |out| {
                write_rev_to(out, hash, entries, &checksum)
            })?;
            let temp_idx = write_temp(dir, "tmp_idx_", &mut temps, hash, |out| {
                write_idx_to(out, entries, &checksum)
            })?;
            Ok::<_, PackWriteError>((temp_rev, temp_idx))
        })();
        let synced = synced
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (synced, indexes)
    });
    drop(file);
    synced.map_err(PackWriteError::io(temp_pack))?;
    let (temp_rev, temp_idx) = indexes?;

    let stem = format!("pack-{}", checksum.to_hex());
    let pack_path = dir.join(format!("{stem}.pack"));
    let rev_path = dir.join(format!("{stem}.rev"));
    let idx_path = dir.join(format!("{stem}.idx"));
    for (from, to) in [
        (temp_pack, pack_path.as_path()),
        (&temp_rev, &rev_path),
        (&temp_idx, &idx_path),
    ] {
        std::fs::rename(from, to).map_err(PackWriteError::io(to))?;
    }
    temps.disarm();
    durable::sync_dir(dir)?;
    Ok(PackOutcome {
        pack_path,
        idx_path,
        rev_path,
        checksum,
        num_objects: entries.len() as u32,
        pack_size,
    })
}

/// Creates a new temporary file, writes it with `body` and a checksum of
/// kind `hash`, fsyncs it and returns its path (registered in `temps`).
fn write_temp(
    dir: &Path,
    prefix: &str,
    temps: &mut TempFiles,
    hash: HashKind,
    body: impl FnOnce(&mut HashFile<&File>) -> io::Result<()>,
) -> Result<PathBuf, PackWriteError> {
    let (path, file) = durable::create_temp(dir, prefix)?;
    temps.add(path.clone());
    let mut out = HashFile::new(&file, hash);
    body(&mut out)
        .and_then(|()| out.finish_with_trailer())
        .map_err(PackWriteError::io(&path))?;
    file.sync_all().map_err(PackWriteError::io(&path))?;
    Ok(path)
}
