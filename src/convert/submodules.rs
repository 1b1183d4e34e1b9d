//! `--recurse-submodules` and `--submodule PATH=REPO`: convert the
//! submodules' repositories before the superproject, and name the
//! superproject's gitlinks through their maps (as `--submodule-map` does).
//!
//! git keeps a submodule's repository in the superproject's git dir, under
//! `modules/<name>` (nested submodules under `modules/<name>/modules/...`).
//! Each is converted into `DEST/modules/<name>`, the same layout, so a
//! clone of DEST can point its submodule URLs there. A submodule's own
//! submodules are converted the same way, recursively, since its gitlinks
//! need them. Every conversion is an ordinary `convert`: a re-run resumes
//! or updates each of them incrementally.
//!
//! The superproject's DEST therefore holds `modules/` before the
//! superproject itself is written; `dest.rs` accepts a DEST holding only
//! that directory as a fresh one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::source::SourceRepo;
use super::{ConvertError, ConvertOptions, ConvertOutcome, Progress, gitmodules};

/// `--submodule PATH=REPO`: the repository of the submodule at PATH.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubmoduleSource {
    pub path: String,
    pub repo: PathBuf,
}

impl std::str::FromStr for SubmoduleSource {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('=') {
            Some((path, repo)) if !path.is_empty() && !repo.is_empty() => Ok(SubmoduleSource {
                path: path.trim_end_matches('/').to_string(),
                repo: PathBuf::from(repo),
            }),
            _ => Err(format!("expected PATH=REPOSITORY, found {s:?}")),
        }
    }
}

/// A submodule converted before its superproject.
#[derive(Debug, Clone)]
pub struct SubmoduleOutcome {
    /// Its name (the `modules/<name>` directory), with the names of the
    /// submodules it is nested in: `mid/leaf`.
    pub name: String,
    pub source: PathBuf,
    pub outcome: ConvertOutcome,
}

/// The submodule repositories to convert: name -> repository.
fn plan(
    opts: &ConvertOptions,
    source: &SourceRepo,
) -> Result<Vec<(String, PathBuf)>, ConvertError> {
    let mut repos = BTreeMap::new();
    if opts.recurse_submodules {
        find_module_dirs(&source.git_dir.join("modules"), "", &mut repos)?;
    }
    if !opts.submodules.is_empty() {
        let work_tree = opts.source.join(".git").exists().then_some(&*opts.source);
        let names = gitmodules::names_by_path(source, work_tree)?;
        for sub in &opts.submodules {
            // git's default name is the path (`git submodule add` without --name).
            let name = names.get(&sub.path).unwrap_or(&sub.path).clone();
            repos.insert(name, sub.repo.clone());
        }
    }
    Ok(repos.into_iter().collect())
}

/// Git directories below `dir` (`modules/`), by name. A directory that is
/// not a git dir is a level of a name with slashes (`modules/libs/core`);
/// a git dir's own `modules/` belongs to its own conversion.
fn find_module_dirs(
    dir: &Path,
    prefix: &str,
    out: &mut BTreeMap<String, PathBuf>,
) -> Result<(), ConvertError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(ConvertError::io(dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| ConvertError::io(dir, e))?;
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        if is_git_dir(&path) {
            out.insert(name, path);
        } else {
            find_module_dirs(&path, &format!("{name}/"), out)?;
        }
    }
    Ok(())
}

fn is_git_dir(path: &Path) -> bool {
    path.join("HEAD").is_file() && path.join("objects").is_dir() && path.join("refs").is_dir()
}

/// Converts the submodules `opts` asks for into `DEST/modules/<name>` and
/// returns the options for the superproject: their maps added to
/// `submodule_maps`, `--force` already applied (DEST removed before the
/// submodules were written into it).
pub fn convert_submodules(
    opts: &ConvertOptions,
    progress: &dyn Progress,
    done: &mut Vec<SubmoduleOutcome>,
) -> Result<ConvertOptions, ConvertError> {
    let mut opts = opts.clone();
    if !opts.recurse_submodules && opts.submodules.is_empty() {
        return Ok(opts);
    }
    let source = SourceRepo::open(&opts.source)?;
    // Submodules are written into DEST: it must not be inside SOURCE.
    super::check_dest_outside_source(&opts.dest, &source.git_dir, &opts.source)?;
    if opts.force {
        super::resume::remove_for_force(&opts.dest)?;
        opts.force = false;
    }
    for (name, repo) in plan(&opts, &source)? {
        let sub_opts = ConvertOptions {
            source: repo.clone(),
            dest: opts.dest.join("modules").join(&name),
            // Its own submodules are needed for its gitlinks.
            recurse_submodules: true,
            submodules: Vec::new(),
            ..opts.clone()
        };
        let outcome = super::convert(&sub_opts, progress).map_err(|e| match e {
            ConvertError::Interrupted => e,
            e => ConvertError::Submodule {
                name: name.clone(),
                repo: repo.clone(),
                error: Box::new(e),
            },
        })?;
        opts.submodule_maps.push(outcome.map_path.clone());
        for mut nested in outcome.submodules.clone() {
            nested.name = format!("{name}/{}", nested.name);
            done.push(nested);
        }
        done.push(SubmoduleOutcome {
            name,
            source: repo,
            outcome,
        });
    }
    Ok(opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn submodule_argument_parses() {
        let s: SubmoduleSource = "lib/core/=../core.git".parse().unwrap();
        assert_eq!(s.path, "lib/core");
        assert_eq!(s.repo, PathBuf::from("../core.git"));
        assert!("nopath".parse::<SubmoduleSource>().is_err());
        assert!("=x".parse::<SubmoduleSource>().is_err());
    }

    #[test]
    fn module_dirs_with_slashes_and_nesting() {
        let dir = tempfile::tempdir().unwrap();
        let mk = |p: &str| {
            let d = dir.path().join(p);
            std::fs::create_dir_all(d.join("objects")).unwrap();
            std::fs::create_dir_all(d.join("refs")).unwrap();
            std::fs::write(d.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        };
        mk("a");
        mk("libs/b");
        mk("a/modules/c");
        let mut found = BTreeMap::new();
        find_module_dirs(dir.path(), "", &mut found).unwrap();
        let names: Vec<&str> = found.keys().map(String::as_str).collect();
        assert_eq!(names, ["a", "libs/b"]);
    }
}
