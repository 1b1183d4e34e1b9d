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
//! superproject itself is written; `dest/` accepts a DEST holding only
//! that directory as a fresh one.

mod gitmodules;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::convert::dest::check_outside_source;
use crate::convert::dest::leftovers::remove_for_force;
use crate::convert::error::ConvertError;
use crate::convert::options::ConvertOptions;
use crate::convert::outcome::{ConvertOutcome, SubmoduleOutcome};
use crate::repo::{SourceRepo, dest_layout};

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

/// One submodule repository to convert before its superproject.
pub struct SubmoduleJob {
    /// Its name: the `modules/<name>` directory.
    pub name: String,
    pub options: ConvertOptions,
}

/// The conversions `opts` asks for before its own: each submodule into
/// `DEST/modules/<name>`, with its own submodules (its gitlinks need
/// them). `--force` is applied here (DEST is removed before the
/// submodules are written into it), so `opts` comes back without it.
pub fn submodule_jobs(opts: &mut ConvertOptions) -> Result<Vec<SubmoduleJob>, ConvertError> {
    if !opts.recurse_submodules && opts.submodules.is_empty() {
        return Ok(Vec::new());
    }
    let source = SourceRepo::open(&opts.source)?;
    // Submodules are written into DEST: it must not be inside SOURCE.
    check_outside_source(&opts.dest, &source.git_dir, &opts.source)?;
    if opts.force {
        remove_for_force(&opts.dest)?;
        opts.force = false;
    }
    let jobs = plan(opts, &source)?
        .into_iter()
        .map(|(name, repo)| SubmoduleJob {
            options: ConvertOptions {
                source: repo,
                dest: dest_layout::modules_dir(&opts.dest).join(&name),
                recurse_submodules: true,
                submodules: Vec::new(),
                // The pool is the superproject's; a submodule is self-contained.
                shared_with: None,
                // The log is the superproject's.
                candidate_log: None,
                // The superproject's refs are not the submodule's, and its
                // gitlinks may pin a commit no ref of the submodule
                // reaches: every object of a submodule is converted.
                ref_selection: None,
                ..opts.clone()
            },
            name,
        })
        .collect();
    Ok(jobs)
}

/// Records a submodule's finished conversion: its map names the
/// superproject's gitlinks, and it is reported with the submodules it
/// converted itself, nested under its name.
pub fn record_submodule(
    opts: &mut ConvertOptions,
    job: SubmoduleJob,
    outcome: ConvertOutcome,
    done: &mut Vec<SubmoduleOutcome>,
) {
    opts.submodule_maps.push(outcome.map_path.clone());
    for mut nested in outcome.submodules.clone() {
        nested.name = format!("{}/{}", job.name, nested.name);
        done.push(nested);
    }
    done.push(SubmoduleOutcome {
        name: job.name,
        source: job.options.source,
        outcome,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::options::SubmoduleSource;

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
