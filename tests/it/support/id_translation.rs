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
    let is_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let boundary_before = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if boundary_before && i + 40 <= bytes.len() && bytes[i..i + 40].iter().all(|&b| is_hex(b)) {
            let end_ok = i + 40 == bytes.len() || !bytes[i + 40].is_ascii_alphanumeric();
            let cand = std::str::from_utf8(&bytes[i..i + 40]).expect("hex is ASCII");
            if end_ok && let Some((s, _)) = map.get(cand) {
                out.extend_from_slice(s.as_bytes());
                i += 40;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}
