//! The two hash algorithms git knows, with their sizes and well-known ids.

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
}

impl std::fmt::Display for HashKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
