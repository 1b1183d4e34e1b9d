//! `rehash/gitlinks.txt`: the gitlink pairs DEST's trees were translated
//! with, beside the map (gitlink targets are submodule commits, not
//! objects of DEST, so they have no map rows). `convert` records the pairs
//! it named through submodule maps or surrogates; `export-sha1` those it
//! named for trees made in DEST. Every later run, and `verify`, reads them.

use std::collections::BTreeMap;
use std::path::Path;

use super::error::GitlinkMapError;
use crate::durable;
use crate::durable::PathError;

/// sha1 hex -> (sha256 hex, origin), by SHA-1.
pub type Recorded = BTreeMap<String, (String, String)>;

/// Where a recorded pair came from.
pub mod origin {
    /// A `--submodule-map` file (or a recursively converted submodule).
    pub const SUBMODULE_MAP: &str = "submodule-map";
    /// `convert --unmapped-gitlinks=placeholder`: the SHA-256 is a stand-in.
    pub const SURROGATE: &str = "surrogate";
    /// `export-sha1 --unmapped-gitlinks=placeholder`: the SHA-1 is a stand-in.
    pub const SHA1_SURROGATE: &str = "sha1-surrogate";
}

/// The pairs the file at `path` records (none when it does not exist).
pub fn read_recorded(path: &Path) -> Result<Recorded, GitlinkMapError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(PathError::new(path, e).into()),
    };
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut f = line.split_ascii_whitespace();
        if let (Some(a), Some(b), Some(origin)) = (f.next(), f.next(), f.next()) {
            out.insert(a.to_string(), (b.to_string(), origin.to_string()));
        }
    }
    Ok(out)
}

/// Writes `recorded` to `path`, durably: a `#` line, then
/// `<sha1> <sha256> <origin>` per pair, by SHA-1.
pub fn write_recorded(path: &Path, recorded: &Recorded) -> Result<(), GitlinkMapError> {
    let mut text = format!(
        "# git-rehash gitlink pairs: <sha1> <sha256> <origin: {} | {} | {}>\n",
        origin::SUBMODULE_MAP,
        origin::SURROGATE,
        origin::SHA1_SURROGATE
    );
    for (sha1, (sha256, origin)) in recorded {
        text.push_str(&format!("{sha1} {sha256} {origin}\n"));
    }
    durable::write_file(path, text.as_bytes())?;
    Ok(())
}
