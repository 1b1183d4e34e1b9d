//! Why SOURCE cannot be opened, or cannot be converted as it is: the
//! error of finding and checking a repository on disk.

use std::path::{Path, PathBuf};

/// Why SOURCE cannot be opened, or cannot be converted as it is.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read {}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not a git repository", .0.display())]
    NotARepository(PathBuf),
    #[error("cannot convert {}: {reason}", path.display())]
    Unsupported { path: PathBuf, reason: String },
}

impl SourceError {
    pub(super) fn io(path: &Path, source: std::io::Error) -> Self {
        SourceError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
