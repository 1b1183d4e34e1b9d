//! Object ids tagged with their hash kind.

use super::HashKind;

/// An object name: the raw digest of `type SP len NUL body`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjectId {
    Sha1([u8; 20]),
    Sha256([u8; 32]),
}

/// A hex string that is not an object id of the expected kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a {kind} object id: {text:?}")]
pub struct HexError {
    pub kind: HashKind,
    pub text: String,
}

impl ObjectId {
    pub fn kind(&self) -> HashKind {
        match self {
            ObjectId::Sha1(_) => HashKind::Sha1,
            ObjectId::Sha256(_) => HashKind::Sha256,
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        match self {
            ObjectId::Sha1(b) => b,
            ObjectId::Sha256(b) => b,
        }
    }

    /// The first 8 bytes as a big-endian number: names are uniform hashes,
    /// so this sorts and buckets them like the whole name, without hashing.
    pub fn leading_u64(&self) -> u64 {
        u64::from_be_bytes(self.as_bytes()[..8].try_into().expect("ids have 8 bytes"))
    }

    /// Builds an id from raw digest bytes; `None` when the length does not fit `kind`.
    pub fn from_raw(kind: HashKind, raw: &[u8]) -> Option<Self> {
        match kind {
            HashKind::Sha1 => raw.try_into().ok().map(ObjectId::Sha1),
            HashKind::Sha256 => raw.try_into().ok().map(ObjectId::Sha256),
        }
    }

    /// Parses exactly `kind.hex_len()` hex digits, either case (git's
    /// `get_oid_hex_algop`, which also accepts upper case).
    pub fn from_hex(kind: HashKind, hex: &[u8]) -> Option<Self> {
        if hex.len() != kind.hex_len() {
            return None;
        }
        let mut raw = [0u8; 32];
        for (i, pair) in hex.chunks_exact(2).enumerate() {
            raw[i] = (hex_value(pair[0])? << 4) | hex_value(pair[1])?;
        }
        Self::from_raw(kind, &raw[..kind.raw_len()])
    }

    /// Like [`ObjectId::from_hex`], with an error that quotes the input.
    pub fn parse_hex(kind: HashKind, hex: &str) -> Result<Self, HexError> {
        Self::from_hex(kind, hex.as_bytes()).ok_or_else(|| HexError {
            kind,
            text: hex.to_string(),
        })
    }

    /// Lowercase hex, as git writes ids.
    pub fn to_hex(&self) -> String {
        let mut s = Vec::with_capacity(self.kind().hex_len());
        self.write_hex(&mut s);
        String::from_utf8(s).expect("hex digits are ASCII")
    }

    /// Appends the lowercase hex form to `out`.
    pub fn write_hex(&self, out: &mut Vec<u8>) {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        for b in self.as_bytes() {
            out.push(DIGITS[(b >> 4) as usize]);
            out.push(DIGITS[(b & 15) as usize]);
        }
    }

    pub fn is_null(&self) -> bool {
        self.as_bytes().iter().all(|&b| b == 0)
    }
}

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

impl std::fmt::Display for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl std::fmt::Debug for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.kind(), self.to_hex())
    }
}

/// The ids git gives a hash kind without storing an object.
impl HashKind {
    /// The all-zero id, used by git for "no object" (reflog creation, deletion).
    pub const fn null_id(self) -> ObjectId {
        match self {
            HashKind::Sha1 => ObjectId::Sha1([0; 20]),
            HashKind::Sha256 => ObjectId::Sha256([0; 32]),
        }
    }

    /// The name of the empty tree, which git knows without storing it.
    pub fn empty_tree(self) -> ObjectId {
        match self {
            HashKind::Sha1 => ObjectId::from_hex(self, b"4b825dc642cb6eb9a060e54bf8d69288fbee4904"),
            HashKind::Sha256 => ObjectId::from_hex(
                self,
                b"6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
            ),
        }
        .expect("constant is valid hex of the right length")
    }

    /// The name of the empty blob, which git knows without storing it.
    pub fn empty_blob(self) -> ObjectId {
        match self {
            HashKind::Sha1 => ObjectId::from_hex(self, b"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"),
            HashKind::Sha256 => ObjectId::from_hex(
                self,
                b"473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",
            ),
        }
        .expect("constant is valid hex of the right length")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_and_case() {
        let lower = b"4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        let upper = b"4B825DC642CB6EB9A060E54BF8D69288FBEE4904";
        let a = ObjectId::from_hex(HashKind::Sha1, lower).unwrap();
        let b = ObjectId::from_hex(HashKind::Sha1, upper).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_hex().as_bytes(), lower);
        assert_eq!(a, HashKind::Sha1.empty_tree());
    }

    #[test]
    fn rejects_wrong_length_and_digits() {
        assert!(ObjectId::from_hex(HashKind::Sha1, b"abc").is_none());
        assert!(ObjectId::from_hex(HashKind::Sha256, &[b'0'; 40]).is_none());
        assert!(ObjectId::from_hex(HashKind::Sha1, &[b'g'; 40]).is_none());
        assert!(HashKind::Sha256.null_id().is_null());
    }
}
