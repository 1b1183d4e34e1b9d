//! Errors of the map store.

use std::path::{Path, PathBuf};

use crate::pipeline::ErrorKind;

#[derive(Debug, thiserror::Error)]
pub enum IdMapError {
    #[error("cannot open map database {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("map database {path}: {source}")]
    Sql {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error(
        "map database {path} has schema version {found}, newer than this git-rehash understands ({known}); upgrade git-rehash"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("map database {path} has a corrupt row: {reason}")]
    CorruptRow { path: PathBuf, reason: String },
    #[error("cannot follow the share of {path}: {reason}")]
    BrokenShare { path: PathBuf, reason: String },
}

impl IdMapError {
    /// What kind of stop it is: a database of a newer git-rehash is the
    /// wrong tool's, a corrupt row or a broken share need a decision, the
    /// rest are failures a retry may cure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            IdMapError::TooNew { .. } => ErrorKind::Usage,
            IdMapError::CorruptRow { .. } => ErrorKind::Corrupt,
            IdMapError::BrokenShare { .. } => ErrorKind::Refused,
            IdMapError::Open { .. } | IdMapError::Sql { .. } => ErrorKind::Failed,
        }
    }

    /// The `map_err` of a SQL call on the database at `path`.
    pub(super) fn sql_at(path: &Path) -> impl Fn(rusqlite::Error) -> Self + Copy + '_ {
        move |source| IdMapError::Sql {
            path: path.to_path_buf(),
            source,
        }
    }
}
