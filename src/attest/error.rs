//! Why a statement could not be made or read. (Differences between a
//! statement and the repository are not errors: `check.rs` reports them.)

use std::path::PathBuf;

use crate::durable::PathError;
use crate::pipeline::ErrorKind;

#[derive(Debug, thiserror::Error)]
pub enum AttestError {
    /// The repository is not one a statement can be made of (yet).
    #[error("{path}: {reason}")]
    NotAttestable { path: PathBuf, reason: String },

    /// Another git-rehash run holds the repository's lock.
    #[error(
        "{repo} is in use by another git-rehash run (it holds {lock}); wait for it to end, then run this again"
    )]
    Locked { repo: PathBuf, lock: PathBuf },

    /// git could not be started at all.
    #[error("cannot run git (needed to sign and check statements): {0}")]
    NoGit(std::io::Error),

    /// git ran and failed.
    #[error("`{command}` failed ({status}): {stderr}")]
    Git {
        command: String,
        status: String,
        stderr: String,
    },

    /// `git tag -s` could not sign.
    #[error(
        "signing the statement failed: `{command}` ({status}): {stderr}\n  \
         git-rehash signs as `git tag -s` does: set user.signingKey (and gpg.format = ssh for an \
         SSH key) in your git config, then run `git-rehash attest` again; the repository is unchanged"
    )]
    Signing {
        command: String,
        status: String,
        stderr: String,
    },

    /// A tag git-rehash reads is not what it wrote.
    #[error("tag {id}: {reason}")]
    BadTag { id: String, reason: String },

    #[error(transparent)]
    Map(#[from] crate::idmap::IdMapError),
    #[error(transparent)]
    Refs(#[from] crate::refs::RefsError),
    #[error(transparent)]
    Io(#[from] PathError),
}

impl AttestError {
    /// What kind of stop it is: a repository that cannot be attested is
    /// the wrong one to name, a signing setup that does not sign or a
    /// statement tag that is not ours needs a decision, the rest (git,
    /// the disk, a lock) may succeed when retried.
    pub fn kind(&self) -> ErrorKind {
        match self {
            AttestError::NotAttestable { .. } => ErrorKind::Usage,
            AttestError::Signing { .. } => ErrorKind::Refused,
            AttestError::BadTag { .. } => ErrorKind::Corrupt,
            AttestError::Map(e) => e.kind(),
            AttestError::Locked { .. }
            | AttestError::NoGit(_)
            | AttestError::Git { .. }
            | AttestError::Refs(_)
            | AttestError::Io(_) => ErrorKind::Failed,
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        AttestError::Io(PathError {
            path: path.into(),
            source,
        })
    }
}
