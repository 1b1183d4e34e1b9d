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
    /// A repository of another object format where a SHA-1 one is read.
    #[error(
        "{} uses object format {format}, not sha1; name a SHA-1 repository here (it may be a \
         conversion already: `git-rehash verify` checks one)",
        path.display()
    )]
    ObjectFormat { path: PathBuf, format: String },
    #[error("cannot convert {}: {reason}", path.display())]
    Unsupported { path: PathBuf, reason: String },
}

impl SourceError {
    /// What kind of stop it is: a path that names no SHA-1 repository is
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
