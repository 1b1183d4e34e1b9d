//! `convert --git-compat-map`: git's own map between the two names,
//! `objects/loose-object-idx` (docs/translation.md, "The compat map"), and
//! the config that makes git read it, `extensions.compatObjectFormat` set
//! to SOURCE's hash.
//!
//! With both, git itself answers `rev-parse --output-object-format=sha1`
//! (in a SHA-256 DEST; `sha256` in a SHA-1 one) and accepts SOURCE's names
//! (`cat-file -p <sha1>` prints the SHA-1 form).
//! git's compat mode is experimental in 2.47: it also converts every object
//! written later and dies when it cannot (see docs/usage.md). The file is
//! parsed whole at every git start-up, so its cost grows with the object
//! count (measured in docs/usage.md).

use std::io::{BufWriter, Write};
use std::path::Path;

use crate::convert::error::ConvertError;
use crate::convert::source_objects::table::ObjectTable;
use crate::durable;
use crate::hash::{HashKind, ObjectId};
use crate::repo::dest_layout;

/// The first line git requires (`loose.c`: `load_one_loose_object_map`).
const HEADER: &[u8] = b"# loose-object-idx\n";

/// The line added under `[extensions]`: SOURCE's names are the compat ones.
pub fn extension(source: HashKind) -> String {
    format!("compatObjectFormat = {source}")
}

/// Writes `<DEST name> <SOURCE name>` for every object of `table` a ref
/// selection did not leave out (the storage name first, as git writes
/// it), then for each extra pair (gitlink targets from submodule maps,
/// which git needs to convert trees that hold them, SOURCE's name first),
/// durably. Returns the line count.
pub fn write_loose_object_idx(
    dest: &Path,
    table: &ObjectTable,
    extra: &[(ObjectId, ObjectId)],
) -> Result<u64, ConvertError> {
    let mut count = 0u64;
    let pairs = table.indices().filter(|&i| !table.is_left_out(i)).map(|i| {
        (
            table.source_id(i),
            table
                .dest_id(i)
                .expect("every object is named before the compat map is written"),
        )
    });
    durable::write_file_with(&dest_layout::loose_object_idx(dest), |file| {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(HEADER)?;
        let mut line = Vec::with_capacity(110);
        for (source, stored) in pairs.chain(extra.iter().copied()) {
            line.clear();
            stored.write_hex(&mut line);
            line.push(b' ');
            source.write_hex(&mut line);
            line.push(b'\n');
            out.write_all(&line)?;
            count += 1;
        }
        out.flush()
    })?;
    Ok(count)
}
