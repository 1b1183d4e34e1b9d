//! The two hash algorithms git knows, with their sizes and well-known ids.

use super::ObjectId;

/// A hash algorithm usable for object names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HashKind {
    Sha1,
    Sha256,
}

impl HashKind {
    /// Length of a raw digest in bytes (git's `rawsz`).
    pub const fn raw_len(self) -> usize {
        match self {
            HashKind::Sha1 => 20,
            HashKind::Sha256 => 32,
        }
    }

    /// Length of a hex digest (git's `hexsz`).
    pub const fn hex_len(self) -> usize {
        self.raw_len() * 2
    }

    /// The hash a transition translates to or from this one.
    pub const fn other(self) -> HashKind {
        match self {
            HashKind::Sha1 => HashKind::Sha256,
            HashKind::Sha256 => HashKind::Sha1,
        }
    }

    /// The name git uses in `extensions.objectformat`.
    pub const fn name(self) -> &'static str {
        match self {
            HashKind::Sha1 => "sha1",
            HashKind::Sha256 => "sha256",
        }
    }

    /// The format id used in `.rev` and other binary headers (1 = SHA-1, 2 = SHA-256).
    pub const fn format_id(self) -> u32 {
        match self {
            HashKind::Sha1 => 1,
            HashKind::Sha256 => 2,
        }
    }

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

impl std::fmt::Display for HashKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
