//! Objects built byte by byte, including ones git would never write.

use std::path::Path;

use sha1::{Digest as _, Sha1};

use super::git::git_with_input;

/// Hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-1 name git gives an object.
pub fn object_name(kind: &str, body: &[u8]) -> [u8; 20] {
    let mut h = Sha1::new();
    h.update(format!("{kind} {}\0", body.len()).as_bytes());
    h.update(body);
    h.finalize().into()
}

/// A name no real object has, distinct per `n`.
pub fn fake_name(n: u64) -> [u8; 20] {
    let mut h = Sha1::new();
    h.update(b"not an object ");
    h.update(n.to_le_bytes());
    h.finalize().into()
}

/// One tree entry: `<mode> <name>\0` and the raw id.
pub fn tree_entry(mode: &str, name: &str, id: &[u8]) -> Vec<u8> {
    let mut e = format!("{mode} {name}\0").into_bytes();
    e.extend_from_slice(id);
    e
}

/// Writes an object literally (no checks) and returns its name.
pub fn write_literally(git_dir: &Path, kind: &str, body: &[u8]) -> String {
    let out = git_with_input(
        git_dir,
        &["hash-object", "-t", kind, "--literally", "-w", "--stdin"],
        body,
    );
    String::from_utf8(out).unwrap().trim().to_string()
}
