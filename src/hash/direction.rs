//! Which way a conversion goes: the hash SOURCE names its objects with and
//! the one DEST names them with (SHA-1 to SHA-256, or back), and how a pair
//! of names sits in the map's two columns, which are the same either way.

use super::{HashKind, ObjectId};

/// The direction of a conversion, set by SOURCE's object format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Direction {
    source: HashKind,
}

impl Direction {
    /// SHA-1 to SHA-256.
    pub const FORWARD: Direction = Direction::from_source(HashKind::Sha1);
    /// SHA-256 to SHA-1.
    pub const REVERSE: Direction = Direction::from_source(HashKind::Sha256);

    /// The direction that converts objects named with `source`.
    pub const fn from_source(source: HashKind) -> Self {
        Direction { source }
    }

    /// The hash SOURCE names objects with.
    pub const fn source(self) -> HashKind {
        self.source
    }

    /// The hash DEST names objects with.
    pub const fn dest(self) -> HashKind {
        self.source.other()
    }

    /// The way back.
    pub const fn inverse(self) -> Self {
        Direction::from_source(self.dest())
    }

    /// How the map's `meta` table records it (`sha1-to-sha256`).
    pub fn name(self) -> &'static str {
        match self.source {
            HashKind::Sha1 => "sha1-to-sha256",
            HashKind::Sha256 => "sha256-to-sha1",
        }
    }

    /// The direction [`Direction::name`] gives `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        [Direction::FORWARD, Direction::REVERSE]
            .into_iter()
            .find(|d| d.name() == name)
    }

    /// A pair of names, SOURCE's and DEST's, as the map's columns hold it:
    /// (SHA-1, SHA-256).
    pub fn columns(self, source: ObjectId, dest: ObjectId) -> (ObjectId, ObjectId) {
        debug_assert_eq!((source.kind(), dest.kind()), (self.source, self.dest()));
        match self.source {
            HashKind::Sha1 => (source, dest),
            HashKind::Sha256 => (dest, source),
        }
    }

    /// The map's columns (SHA-1, SHA-256) as SOURCE's name and DEST's.
    pub fn split(self, sha1: ObjectId, sha256: ObjectId) -> (ObjectId, ObjectId) {
        match self.source {
            HashKind::Sha1 => (sha1, sha256),
            HashKind::Sha256 => (sha256, sha1),
        }
    }
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} to {}", self.source, self.dest())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_columns_and_inverse() {
        for d in [Direction::FORWARD, Direction::REVERSE] {
            assert_eq!(Direction::from_name(d.name()), Some(d));
            assert_eq!(d.inverse().inverse(), d);
            assert_ne!(d.source(), d.dest());
            let (source, dest) = (d.source().empty_tree(), d.dest().empty_tree());
            let (sha1, sha256) = d.columns(source, dest);
            assert_eq!(
                (sha1.kind(), sha256.kind()),
                (HashKind::Sha1, HashKind::Sha256)
            );
            assert_eq!(d.split(sha1, sha256), (source, dest));
        }
        assert_eq!(Direction::from_name("sideways"), None);
        assert_eq!(Direction::REVERSE.to_string(), "sha256 to sha1");
    }
}
