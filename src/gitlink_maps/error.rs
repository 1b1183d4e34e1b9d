//! What can go wrong with a gitlink map: a file that cannot be read or
//! written, or one that is not a map of gitlink pairs (or contradicts
//! another). Each pipeline wraps it in its own error.

use std::path::PathBuf;

use crate::durable::PathError;
use crate::pipeline::ErrorKind;

#[derive(Debug, thiserror::Error)]
pub enum GitlinkMapError {
    /// An I/O error on a map file or on the record: its path, then the cause.
    #[error(transparent)]
    File(#[from] PathError),
    /// The file's content is not what a gitlink map holds: its path, then
    /// what is wrong.
    #[error("{}", path.display())]
    Invalid {
        path: PathBuf,
        #[source]
        reason: InvalidContent,
    },
}

impl GitlinkMapError {
    /// What kind of stop it is: a file that is not a gitlink map was
    /// named by mistake; one that cannot be read (not there yet: the
    /// submodule's conversion has not run) may be there on a retry.
    pub fn kind(&self) -> ErrorKind {
        match self {
            GitlinkMapError::File(_) => ErrorKind::Failed,
            GitlinkMapError::Invalid { .. } => ErrorKind::Usage,
        }
    }
}

/// What is wrong with a gitlink map's content (a line, a contradiction).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InvalidContent(pub String);
