//! Errors that stop a verification before it can judge anything (as
//! opposed to [`super::Problem`]s, which it reports and goes on).

use std::path::PathBuf;

use crate::pipeline::ErrorKind;

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(
        "{} is not a git-rehash conversion: {reason}; name the DEST a `git-rehash convert` made",
        path.display()
    )]
    NotAConversion { path: PathBuf, reason: String },
    /// A file verify must read to judge anything is damaged.
    #[error("{} cannot be read: {reason}", path.display())]
    Damaged { path: PathBuf, reason: String },
    #[error(transparent)]
    Map(#[from] crate::idmap::IdMapError),
    #[error(transparent)]
    Refs(#[from] crate::refs::RefsError),
    #[error(transparent)]
    Source(#[from] crate::repo::SourceError),
    #[error(transparent)]
    Pack(#[from] crate::pack::PackError),
    #[error(transparent)]
    Loose(#[from] crate::loose::LooseError),
    #[error("cannot read {}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl VerifyError {
    /// What kind of stop it is (the CLI's exit status follows it).
    pub fn kind(&self) -> ErrorKind {
        match self {
            VerifyError::NotAConversion { .. } => ErrorKind::Usage,
            VerifyError::Source(e) => e.kind(),
            VerifyError::Damaged { .. } | VerifyError::Pack(_) | VerifyError::Loose(_) => {
                ErrorKind::Corrupt
            }
            VerifyError::Map(e) => e.kind(),
            VerifyError::Refs(_) | VerifyError::Io { .. } => ErrorKind::Failed,
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        VerifyError::Io {
            path: path.into(),
            source,
        }
    }
}
