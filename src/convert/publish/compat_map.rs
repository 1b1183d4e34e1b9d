//! `convert --git-compat-map`: git's own map between the two names,
//! `objects/loose-object-idx` (docs/translation.md, "The compat map"), and
//! the config that
//! makes git read it, `extensions.compatObjectFormat = sha1`.
//!
//! With both, git itself answers `rev-parse --output-object-format=sha1`
//! and accepts SHA-1 names (`cat-file -p <sha1>` prints the SHA-1 form).
//! git's compat mode is experimental in 2.47: it also converts every object
//! written later and dies when it cannot (see docs/usage.md). The file is
//! parsed whole at every git start-up, so its cost grows with the object
//! count (measured in docs/usage.md).

use std::io::{BufWriter, Write};
use std::path::Path;

use crate::convert::error::ConvertError;
use crate::convert::source_objects::table::ObjectTable;
use crate::durable;
use crate::hash::ObjectId;
use crate::repo::dest_layout;

/// The first line git requires (`loose.c`: `load_one_loose_object_map`).
const HEADER: &[u8] = b"# loose-object-idx\n";

/// The config line added under `[extensions]`.
pub const COMPAT_EXTENSION: &str = "\tcompatObjectFormat = sha1\n";

/// Writes `<sha256> <sha1>` for every object of `table` (storage name
/// first, as git writes it in a SHA-256 repository), then for each extra
/// pair (gitlink targets from submodule maps, which git needs to convert
/// trees that hold them), durably. Returns the line count.
pub fn write_loose_object_idx(
    dest: &Path,
    table: &ObjectTable,
    extra: &[(ObjectId, ObjectId)],
) -> Result<u64, ConvertError> {
    let mut count = 0u64;
    let pairs = table.indices().map(|i| {
        (
            table.sha1(i),
            table
                .sha256(i)
                .expect("every object is named before the compat map is written"),
        )
    });
    durable::write_file_with(&dest_layout::loose_object_idx(dest), |file| {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(HEADER)?;
        let mut line = Vec::with_capacity(110);
        for (sha1, sha256) in pairs.chain(extra.iter().copied()) {
            line.clear();
            sha256.write_hex(&mut line);
            line.push(b' ');
            sha1.write_hex(&mut line);
            line.push(b'\n');
            out.write_all(&line)?;
            count += 1;
        }
        out.flush()
    })?;
    Ok(count)
}

/// The repository config with `compatObjectFormat = sha1` appended to its
/// `[extensions]` section (which `base` must end with).
pub fn config_with_compat(base: &str) -> String {
    debug_assert!(base.trim_end().ends_with("objectformat = sha256"));
    format!("{base}{COMPAT_EXTENSION}")
}
