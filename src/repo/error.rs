//! Why SOURCE cannot be opened, or cannot be converted as it is: the
//! error of finding and checking a repository on disk.

use std::path::{Path, PathBuf};

use crate::pipeline::ErrorKind;

/// Why SOURCE cannot be opened, or cannot be converted as it is.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read {}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} does not exist; give the path of an existing git repository", .0.display())]
    NotFound(PathBuf),
    #[error(
        "{} is not a git repository (it has neither a .git nor HEAD, objects/ and refs/); \
         give the path of a git repository, bare or with a work tree",
        .0.display()
    )]
    NotARepository(PathBuf),
    /// A repository of an object format git-rehash does not convert.
    #[error(
        "{} uses object format {format}, which git-rehash does not convert; name a SHA-1 or \
         SHA-256 repository here",
        path.display()
    )]
    ObjectFormat { path: PathBuf, format: String },
    #[error("cannot convert {}: {reason}", path.display())]
    Unsupported { path: PathBuf, reason: String },
}

impl SourceError {
    /// What kind of stop it is: a path that names no repository it reads is
    /// the caller's mistake; one that cannot be converted as it is needs a
    /// decision; a read that failed may succeed when retried.
    pub fn kind(&self) -> ErrorKind {
        match self {
            SourceError::NotFound(_)
            | SourceError::NotARepository(_)
            | SourceError::ObjectFormat { .. } => ErrorKind::Usage,
            SourceError::Unsupported { .. } => ErrorKind::Refused,
            SourceError::Io { .. } => ErrorKind::Failed,
        }
    }

    pub(super) fn io(path: &Path, source: std::io::Error) -> Self {
        SourceError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
