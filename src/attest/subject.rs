//! The repository a statement is about (and is written into), and
//! everything the statement is built from: the map that pairs its objects
//! with its SOURCE's, the run that made it, where SOURCE's own statement
//! is found. Two kinds today: a conversion's DEST (its own map in
//! `rehash/`) and the SHA-1 MIRROR `export-sha1` writes (DEST's map pairs
//! its objects). Nothing below depends on the direction: a repository of
//! either object format with a map of either side works alike.

use std::fs;
use std::path::{Path, PathBuf};

use super::AttestError;
use super::run_record::RunRecord;
use crate::gitconfig::GitConfig;
use crate::hash::{HashKind, ObjectId};
use crate::idmap::{IdMap, open_with_shares};
use crate::repo::{dest_layout, mirror_layout};

/// Where the statement of SOURCE's own conversion comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceStatement {
    /// The repository's `refs/rehash/source-attestation` (a conversion
    /// carries SOURCE's statement there), named back in SOURCE's format
    /// through the map.
    FromRefs,
    /// Given by the caller (`export-sha1` reads DEST's statement).
    Known(Option<ObjectId>),
    /// Not known to the caller: a check does not compare it.
    Unknown,
}

/// A repository and what its statement is built from.
#[derive(Clone, Debug)]
pub struct Subject {
    /// The repository's git directory.
    pub git_dir: PathBuf,
    /// Its object format.
    pub format: HashKind,
    /// The map database that pairs its objects with SOURCE's.
    pub map: PathBuf,
    /// The gitlink pairs recorded beside the map (`gitlinks.txt`).
    pub gitlinks: PathBuf,
    /// The tool and options of the run that made it; `None` when not
    /// recorded (a check then does not compare them).
    pub run: Option<RunRecord>,
    pub source_statement: SourceStatement,
    /// The lock file of runs that write the repository.
    pub lock: PathBuf,
    /// Where the statement is signed (see `sign.rs`).
    pub scratch: PathBuf,
    /// Whether the statements are recorded in the map's `created` table
    /// (the map is the repository's own, a conversion's DEST in either
    /// hash), so that `verify` and `export-sha1` know them.
    pub records_created: bool,
}

impl Subject {
    /// The DEST of a conversion: its own map (`rehash/map.sqlite`, or
    /// `map` when given) and the run record in it.
    pub fn conversion(dest: &Path, map: Option<&Path>) -> Result<Subject, AttestError> {
        let git_dir = open_git_dir(dest)?;
        let format = object_format(&git_dir)?;
        let map = map.map_or_else(|| dest_layout::map_db(&git_dir), Path::to_path_buf);
        if !map.is_file() {
            return Err(AttestError::NotAttestable {
                path: git_dir,
                reason: format!(
                    "it has no map database ({}); a statement is made of a repository \
                     git-rehash converted",
                    map.display()
                ),
            });
        }
        let run = RunRecord::load(&IdMap::open_read_only(&map)?)?;
        Ok(Subject {
            gitlinks: beside(&map, "gitlinks.txt"),
            map,
            format,
            run,
            source_statement: SourceStatement::FromRefs,
            lock: dest_layout::lock(&git_dir),
            scratch: dest_layout::attest_scratch(&git_dir),
            records_created: true,
            git_dir,
        })
    }

    /// A MIRROR `export-sha1` wrote from the conversion whose map is `map`.
    pub fn mirror(
        mirror: &Path,
        map: &Path,
        run: Option<RunRecord>,
        source_statement: SourceStatement,
    ) -> Result<Subject, AttestError> {
        let git_dir = open_git_dir(mirror)?;
        let format = object_format(&git_dir)?;
        Ok(Subject {
            gitlinks: beside(map, "gitlinks.txt"),
            map: map.to_path_buf(),
            format,
            run,
            source_statement,
            lock: mirror_layout::lock(&git_dir),
            scratch: mirror_layout::attest_scratch(&git_dir),
            records_created: false,
            git_dir,
        })
    }

    /// The map and the maps of the pools it shares objects with, read-only.
    pub fn open_maps(&self) -> Result<Vec<IdMap>, AttestError> {
        Ok(open_with_shares(IdMap::open_read_only(&self.map)?)?)
    }

    /// The other side's object format.
    pub fn source_format(&self) -> HashKind {
        self.format.other()
    }
}

fn open_git_dir(path: &Path) -> Result<PathBuf, AttestError> {
    let git_dir = fs::canonicalize(path).map_err(|e| AttestError::io(path, e))?;
    if !git_dir.join("HEAD").is_file() {
        return Err(AttestError::NotAttestable {
            path: git_dir,
            reason: "it is not a git repository (yet): it has no HEAD".into(),
        });
    }
    Ok(git_dir)
}

/// The repository's `extensions.objectformat` (SHA-1 when unset).
pub fn object_format(git_dir: &Path) -> Result<HashKind, AttestError> {
    let path = git_dir.join("config");
    let config = GitConfig::read(&path).map_err(|e| AttestError::io(&path, e))?;
    match config
        .get("extensions.objectformat")
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        None | Some("sha1") => Ok(HashKind::Sha1),
        Some("sha256") => Ok(HashKind::Sha256),
        Some(other) => Err(AttestError::NotAttestable {
            path: git_dir.to_path_buf(),
            reason: format!("its object format {other} is not one git-rehash knows"),
        }),
    }
}

fn beside(file: &Path, name: &str) -> PathBuf {
    file.parent().unwrap_or(Path::new(".")).join(name)
}
