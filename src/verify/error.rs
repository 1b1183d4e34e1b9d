//! Errors that stop a verification before it can judge anything (as
//! opposed to [`super::Problem`]s, which it reports and goes on).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("{path} is not a git-rehash conversion: {reason}")]
    NotAConversion { path: PathBuf, reason: String },
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
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        VerifyError::Io {
            path: path.into(),
            source,
        }
    }
}
