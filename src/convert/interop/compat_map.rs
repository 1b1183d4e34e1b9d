//! `convert --git-compat-map`: git's own map between the two names,
//! `objects/loose-object-idx` (TRANSLATION.md §3.6), and the config that
//! makes git read it, `extensions.compatObjectFormat = sha1` (§3.1).
//!
//! With both, git itself answers `rev-parse --output-object-format=sha1`
//! and accepts SHA-1 names (`cat-file -p <sha1>` prints the SHA-1 form).
//! git's compat mode is experimental in 2.47: it also converts every object
//! written later and dies when it cannot (see docs/usage.md). The file is
//! parsed whole at every git start-up, so its cost grows with the object
//! count (measured in docs/usage.md).

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::convert::ConvertError;
use crate::convert::objects::table::ObjectTable;
use crate::hash::ObjectId;

/// The first line git requires (`loose.c`: `load_one_loose_object_map`).
const HEADER: &[u8] = b"# loose-object-idx\n";

/// The config line added under `[extensions]`.
pub const COMPAT_EXTENSION: &str = "\tcompatObjectFormat = sha1\n";

/// `objects/loose-object-idx` of the repository at `dest`.
pub fn loose_object_idx_path(dest: &Path) -> PathBuf {
    dest.join("objects").join("loose-object-idx")
}

/// Writes `<sha256> <sha1>` for every object of `table` (storage name
/// first, as git writes it in a SHA-256 repository), then for each extra
/// pair (gitlink targets from submodule maps, which git needs to convert
/// trees that hold them). Temp file, fsync, rename. Returns the line count.
pub fn write_loose_object_idx(
    dest: &Path,
    table: &ObjectTable,
    extra: &[(ObjectId, ObjectId)],
) -> Result<u64, ConvertError> {
    let path = loose_object_idx_path(dest);
    let tmp = path.with_extension("rehash-tmp");
    let file = File::create(&tmp).map_err(|e| ConvertError::io(&tmp, e))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let io = |e| ConvertError::io(&tmp, e);
    out.write_all(HEADER).map_err(io)?;
    let mut line = Vec::with_capacity(110);
    let mut count = 0u64;
    let pairs = table.indices().map(|i| {
        (
            table.sha1(i),
            table
                .sha256(i)
                .expect("every object is named before the compat map is written"),
        )
    });
    for (sha1, sha256) in pairs.chain(extra.iter().copied()) {
        line.clear();
        sha256.write_hex(&mut line);
        line.push(b' ');
        sha1.write_hex(&mut line);
        line.push(b'\n');
        out.write_all(&line).map_err(io)?;
        count += 1;
    }
    let file = out.into_inner().map_err(|e| io(e.into_error()))?;
    file.sync_all().map_err(io)?;
    fs::rename(&tmp, &path).map_err(|e| ConvertError::io(&path, e))?;
    Ok(count)
}

/// The repository config with `compatObjectFormat = sha1` appended to its
/// `[extensions]` section (which `base` must end with).
pub fn config_with_compat(base: &str) -> String {
    debug_assert!(base.trim_end().ends_with("objectformat = sha256"));
    format!("{base}{COMPAT_EXTENSION}")
}
