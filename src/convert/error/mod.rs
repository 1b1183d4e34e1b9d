//! Everything that can stop a conversion, in kinds the CLI tells apart
//! (each its own exit status): a refusal of SOURCE as it is, corrupt
//! input, a DEST this run may not write, and failures of the machine
//! (I/O, a full disk) or of the map database. Every message says its own
//! part once; an underlying error is its cause, printed after it.

mod corrupt;
mod dest_state;
pub mod findings;
mod refusal;

use std::path::{Path, PathBuf};

pub use corrupt::CorruptInput;
pub use dest_state::DestState;
pub use refusal::{MergetagTarget, Refusal, UnmappedSubmodule, reach_line, role_name};

use crate::durable::PathError;
use crate::gitlink_maps::GitlinkMapError;
use crate::pipeline::{ErrorKind, Interrupted};
use crate::refs::RefsError;
use crate::repo::SourceError;

#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error(transparent)]
    Source(#[from] SourceError),
    /// Boxed: its variants are the largest, and errors travel by value
    /// through every phase.
    #[error(transparent)]
    Corrupt(Box<CorruptInput>),
    #[error(transparent)]
    Dest(#[from] DestState),
    /// An I/O error on a file or directory: its path, then the cause.
    #[error(transparent)]
    File(#[from] PathError),
    #[error(transparent)]
    PackWrite(#[from] crate::pack::PackWriteError),
    #[error(transparent)]
    Refs(#[from] crate::refs::RefsError),
    #[error(transparent)]
    Map(#[from] crate::idmap::IdMapError),
    /// A `--submodule-map` file, or DEST's record of gitlink pairs.
    #[error(transparent)]
    GitlinkMaps(#[from] GitlinkMapError),
    #[error("submodule {name} ({})", repo.display())]
    Submodule {
        name: String,
        repo: PathBuf,
        #[source]
        error: Box<ConvertError>,
    },
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

impl ConvertError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        ConvertError::File(PathError::new(path, source))
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            ConvertError::Refused(
                Refusal::DestInsideSource { .. }
                | Refusal::IncompatibleOptions(_)
                | Refusal::HeadLeftOut { .. }
                | Refusal::SelectionKeepsNothing { .. },
            ) => ErrorKind::Usage,
            ConvertError::Refused(_) => ErrorKind::Refused,
            ConvertError::Source(e) => e.kind(),
            ConvertError::Corrupt(_) => ErrorKind::Corrupt,
            ConvertError::Dest(e) => e.kind(),
            // A damaged table, or worktrees whose refs cannot be named:
            // SOURCE as it is cannot be converted, retrying will not help.
            ConvertError::Refs(RefsError::Reftable { .. }) => ErrorKind::Corrupt,
            ConvertError::Refs(
                RefsError::BadWorktreeName { .. } | RefsError::WorktreeNamespaceTaken { .. },
            ) => ErrorKind::Refused,
            ConvertError::Map(e) => e.kind(),
            ConvertError::GitlinkMaps(e) => e.kind(),
            ConvertError::File(_) | ConvertError::PackWrite(_) | ConvertError::Refs(_) => {
                ErrorKind::Failed
            }
            ConvertError::Submodule { error, .. } => error.kind(),
            ConvertError::Interrupted(_) => ErrorKind::Interrupted,
        }
    }
}

impl From<CorruptInput> for ConvertError {
    fn from(e: CorruptInput) -> Self {
        ConvertError::Corrupt(Box::new(e))
    }
}

impl From<crate::pack::PackError> for ConvertError {
    fn from(e: crate::pack::PackError) -> Self {
        CorruptInput::Pack(e).into()
    }
}

impl From<crate::loose::LooseError> for ConvertError {
    fn from(e: crate::loose::LooseError) -> Self {
        CorruptInput::Loose(e).into()
    }
}
