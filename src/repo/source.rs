//! Opening the SOURCE repository read-only and refusing layouts the
//! converter cannot translate faithfully.
//!
//! Nothing here writes: no lock files, no index refresh, no config change.

use std::path::{Path, PathBuf};

use super::alternates;
use super::error::SourceError;
use crate::gitconfig::GitConfig;
use crate::hash::HashKind;
use crate::refs::RefStorage;

/// A source repository's directories and settings.
#[derive(Debug)]
pub struct SourceRepo {
    /// The git directory (`.git` of a work tree, or the bare repository).
    pub git_dir: PathBuf,
    /// `objects/` of the git directory.
    pub objects_dir: PathBuf,
    /// The object directories it borrows from (`objects/info/alternates`,
    /// followed recursively), in git's order: part of its object store.
    pub alternates: Vec<PathBuf>,
    pub config: GitConfig,
    /// The hash that names its objects (`extensions.objectFormat`): a
    /// conversion goes from it to the other.
    pub object_format: HashKind,
    /// The ref backend (`extensions.refStorage`).
    pub ref_storage: RefStorage,
}

impl SourceRepo {
    /// Finds the git directory of `path` and checks that it is a SHA-1 or
    /// SHA-256 repository git-rehash can convert.
    pub fn open(path: &Path) -> Result<Self, SourceError> {
        let git_dir = find_git_dir(path)?;
        let config_path = git_dir.join("config");
        let config = GitConfig::read(&config_path).map_err(|e| SourceError::io(&config_path, e))?;
        let ref_storage = match config.get("extensions.refstorage") {
            None => RefStorage::Files,
            Some(name) => RefStorage::from_name(&name.to_ascii_lowercase()).ok_or_else(|| {
                SourceError::Unsupported {
                    path: git_dir.clone(),
                    reason: format!(
                        "its refs are stored as {name}, a backend git-rehash does not know \
                         (it reads files and reftable)"
                    ),
                }
            })?,
        };
        let object_format = object_format(&config).map_err(|format| SourceError::ObjectFormat {
            path: git_dir.clone(),
            format,
        })?;
        let mut repo = SourceRepo {
            objects_dir: git_dir.join("objects"),
            git_dir,
            alternates: Vec::new(),
            config,
            object_format,
            ref_storage,
        };
        repo.check_supported()?;
        repo.alternates = alternates::alternate_object_dirs(&repo.objects_dir)?;
        Ok(repo)
    }

    /// Every directory of its object store: its own `objects/` first, then
    /// its alternates.
    pub fn object_dirs(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.objects_dir.as_path())
            .chain(self.alternates.iter().map(PathBuf::as_path))
    }

    fn check_supported(&self) -> Result<(), SourceError> {
        let refuse = |reason: String| SourceError::Unsupported {
            path: self.git_dir.clone(),
            reason,
        };
        let shallow = self.git_dir.join("shallow");
        if std::fs::metadata(&shallow)
            .map(|m| m.len() > 0)
            .unwrap_or(false)
        {
            return Err(refuse(format!(
                "it is a shallow clone ({} lists commits whose parents are absent, so their \
                 SHA-256 names cannot be computed); fetch the full history first (git fetch --unshallow)",
                shallow.display()
            )));
        }
        if self.config.get("extensions.partialclone").is_some() {
            return Err(refuse(
                "it is a partial clone (extensions.partialclone): objects the promisor remote \
                 has not sent cannot be converted; fetch them all first \
                 (git fetch --refetch with no filter)"
                    .to_string(),
            ));
        }
        if !self.objects_dir.is_dir() {
            return Err(refuse(format!("{} is missing", self.objects_dir.display())));
        }
        Ok(())
    }
}

/// The hash a repository names its objects with: `extensions.objectFormat`,
/// SHA-1 when unset (git's `repository_format`); git's compat setting
/// (`extensions.compatObjectFormat`) changes nothing here. Another name is
/// returned as the error.
fn object_format(config: &GitConfig) -> Result<HashKind, String> {
    let name = config
        .get("extensions.objectformat")
        .unwrap_or("sha1")
        .to_ascii_lowercase();
    [HashKind::Sha1, HashKind::Sha256]
        .into_iter()
        .find(|kind| kind.name() == name)
        .ok_or(name)
}

/// git's discovery, restricted to the given path: a work tree with `.git`
/// (directory or `gitdir:` file), or a git directory itself.
fn find_git_dir(path: &Path) -> Result<PathBuf, SourceError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => SourceError::NotFound(path.to_path_buf()),
        _ => SourceError::io(path, e),
    })?;
    if !meta.is_dir() {
        return Err(SourceError::NotARepository(path.to_path_buf()));
    }
    let dot_git = path.join(".git");
    let candidate = if dot_git.is_dir() {
        dot_git
    } else if dot_git.is_file() {
        let text = std::fs::read_to_string(&dot_git).map_err(|e| SourceError::io(&dot_git, e))?;
        let target = text
            .strip_prefix("gitdir:")
            .map(str::trim)
            .ok_or_else(|| SourceError::NotARepository(path.to_path_buf()))?;
        path.join(target)
    } else {
        path.to_path_buf()
    };
    // A linked work tree's git dir names the shared repository in `commondir`;
    // objects and refs live there, and that is what gets converted.
    let common = match std::fs::read_to_string(candidate.join("commondir")) {
        Ok(rel) => candidate.join(rel.trim()),
        Err(_) => candidate,
    };
    let looks_like_git_dir = common.join("HEAD").is_file()
        && common.join("objects").is_dir()
        && common.join("refs").is_dir();
    if !looks_like_git_dir {
        return Err(SourceError::NotARepository(path.to_path_buf()));
    }
    std::fs::canonicalize(&common).map_err(|e| SourceError::io(&common, e))
}
