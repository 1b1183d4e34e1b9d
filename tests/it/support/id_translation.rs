//! SHA-1 names in git's output replaced by their SHA-256 names, so the
//! output of git in SOURCE can be compared with the output of git in DEST.

use super::oracle::OracleMap;

/// The SHA-256 name of `sha1` in `map`; the null id maps to the null id.
pub fn to_sha256(map: &OracleMap, sha1: &str) -> String {
    if sha1 == "0".repeat(40) {
        return "0".repeat(64);
    }
    map.get(sha1)
        .map(|(s, _)| s.clone())
        .unwrap_or_else(|| panic!("{sha1} is not in the map"))
}

/// Replaces every 40-hex id known to the map in `text` by its SHA-256 name.
pub fn translate_ids(map: &OracleMap, text: &str) -> String {
    String::from_utf8(translate_id_bytes(map, text.as_bytes())).expect("ids are ASCII")
}

/// Byte version of [`translate_ids`], for output that need not be UTF-8.
pub fn translate_id_bytes(map: &OracleMap, bytes: &[u8]) -> Vec<u8> {
    replace_ids(bytes, 40, |id| map.get(id).map(|(s, _)| s.as_str()))
}

/// The other way: every 64-hex id the map pairs in `bytes` replaced by its
/// SHA-1 name, for comparing git's output in a SHA-256 SOURCE with git's
/// in its SHA-1 DEST.
pub fn translate_sha256_bytes(map: &OracleMap, bytes: &[u8]) -> Vec<u8> {
    let sha1_of: std::collections::HashMap<&str, &str> = map
        .iter()
        .map(|(sha1, (sha256, _))| (sha256.as_str(), sha1.as_str()))
        .collect();
    replace_ids(bytes, 64, |id| sha1_of.get(id).copied())
}

/// Replaces each whole word of `width` lowercase hex digits that `lookup`
/// knows.
fn replace_ids<'m>(
    bytes: &[u8],
    width: usize,
    lookup: impl Fn(&str) -> Option<&'m str>,
) -> Vec<u8> {
    let is_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let boundary_before = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if boundary_before
            && i + width <= bytes.len()
            && bytes[i..i + width].iter().all(|&b| is_hex(b))
        {
            let end_ok = i + width == bytes.len() || !bytes[i + width].is_ascii_alphanumeric();
            let cand = std::str::from_utf8(&bytes[i..i + width]).expect("hex is ASCII");
            if end_ok && let Some(s) = lookup(cand) {
                out.extend_from_slice(s.as_bytes());
                i += width;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}
