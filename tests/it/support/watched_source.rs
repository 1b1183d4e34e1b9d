//! A SOURCE repository under test, fingerprinted before a run so that the
//! run can be shown to leave it byte-identical, whether it converts or is
//! refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::file_tree::tree_checksums;
use super::git::git;
use super::refusal::{REFUSED, assert_clean_exit};
use super::rehash::rehash_convert;
use super::repo_files::pack_files;
use super::scratch::scratch_dir;

/// A source repository under test and its fingerprint before the run.
pub struct Source {
    /// What is passed as SOURCE.
    pub path: PathBuf,
    /// The git directory (where packs and objects live).
    pub git_dir: PathBuf,
    before: Option<BTreeMap<PathBuf, [u8; 32]>>,
}

impl Source {
    /// A repository (or any directory) passed as SOURCE as is.
    pub fn at(path: PathBuf) -> Source {
        let git_dir = if path.join(".git").is_dir() {
            path.join(".git")
        } else {
            path.clone()
        };
        Source {
            path,
            git_dir,
            before: None,
        }
    }

    /// Packs every object into one pack (`git repack -adq`) and returns
    /// the pack's path.
    pub fn repack(&self) -> PathBuf {
        git(&self.path, &["repack", "-adq"]);
        let mut packs = pack_files(&self.git_dir);
        assert_eq!(packs.len(), 1, "one pack after repack -ad: {packs:?}");
        packs.remove(0)
    }

    /// Records the fingerprint; call after the repository is broken.
    pub fn freeze(&mut self) {
        self.before = Some(tree_checksums(&self.path));
    }

    fn assert_unchanged(&mut self) {
        assert_eq!(
            self.before.as_ref(),
            Some(&tree_checksums(&self.path)),
            "SOURCE was modified"
        );
    }

    /// Runs `convert` into a fresh DEST and checks the refusal: exit 1, a
    /// `git-rehash: error:` message holding every `mentions`, no panic or
    /// backtrace, SOURCE byte-identical, DEST not a repository. Returns
    /// stderr.
    pub fn refused(&mut self, mentions: &[&str]) -> String {
        let dest = scratch_dir("hostile-dest").join("dest.git");
        self.refused_into(&dest, &[], mentions)
    }

    /// [`Source::refused`] into `dest`, with `extra` options.
    pub fn refused_into(&mut self, dest: &Path, extra: &[&str], mentions: &[&str]) -> String {
        self.stopped_into(dest, extra, REFUSED, mentions)
    }

    /// [`Source::refused_into`] with exit status `status` (refusal.rs
    /// names them): usage, a failure, ...
    pub fn stopped_into(
        &mut self,
        dest: &Path,
        extra: &[&str],
        status: i32,
        mentions: &[&str],
    ) -> String {
        if self.before.is_none() {
            self.freeze();
        }
        let out = rehash_convert(&self.path, dest, &[&["--quiet"], extra].concat());
        let stderr = assert_clean_exit(&out, status, mentions);
        self.assert_unchanged();
        assert!(
            !dest.join("config").exists(),
            "a failed DEST must not look like a repository"
        );
        stderr
    }

    /// Runs `convert` and expects success; checks SOURCE is unchanged.
    /// Returns DEST and stderr.
    pub fn converts(&mut self, extra: &[&str]) -> (PathBuf, String) {
        if self.before.is_none() {
            self.freeze();
        }
        let dest = scratch_dir("hostile-dest").join("dest.git");
        let out = rehash_convert(&self.path, &dest, extra);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "convert failed: {stderr}");
        self.assert_unchanged();
        (dest, stderr)
    }
}

/// An empty bare repository.
pub fn bare_repo(label: &str) -> Source {
    let path = scratch_dir(label).join("source.git");
    std::fs::create_dir_all(&path).unwrap();
    git(&path, &["init", "-q", "--bare"]);
    Source::at(path)
}

/// A repository with a work tree, a few commits and files, all loose.
pub fn small_repo(label: &str) -> Source {
    small_repo_in(label, "sha1")
}

/// [`small_repo`] with object format `format` ("sha1" or "sha256").
pub fn small_repo_in(label: &str, format: &str) -> Source {
    let path = scratch_dir(label).join("source");
    std::fs::create_dir_all(&path).unwrap();
    let format = format!("--object-format={format}");
    git(&path, &["init", "-q", "-b", "main", &format]);
    for i in 0..3 {
        std::fs::write(path.join("file.txt"), format!("version {i}\n").repeat(20)).unwrap();
        std::fs::write(path.join(format!("f{i}.txt")), format!("file {i}\n")).unwrap();
        git(&path, &["add", "-A"]);
        git(&path, &["commit", "-q", "-m", &format!("commit {i}")]);
    }
    Source::at(path)
}
