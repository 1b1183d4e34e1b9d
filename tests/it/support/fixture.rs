//! The fixture of `tests/fixtures/make-tricky-repo.sh`: a SHA-1 repository
//! full of the corner cases a conversion must get right, built once per
//! test process and variant and shared by every test (read-only).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use super::git::{expect_success, git, git_command, isolate};
use super::oracle::read_pairs;
use super::scratch::scratch_root;

/// `tests/fixtures/make-tricky-repo.sh`
pub const FIXTURE_SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/make-tricky-repo.sh"
);

/// Which variant of the fixture to build.  `Default` is the variant that git
/// itself converts completely with no extra input (no gitlink, no unknown
/// commit header) -- the converter's main path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FixtureOptions {
    /// Add a commit with a gitlink (mode 160000) to `sub`'s HEAD on `main`.
    /// git (and git-rehash by default) refuse it without the submodule's map.
    pub gitlink: bool,
    /// Add `refs/heads/unknown-header`, a commit with a `change-id` header,
    /// which git 2.47 refuses to convert.
    pub unknown_header: bool,
}

impl FixtureOptions {
    /// The variant with a gitlink.
    pub const GITLINK: FixtureOptions = FixtureOptions {
        gitlink: true,
        unknown_header: false,
    };

    /// The variant with a commit carrying an unknown header.
    pub const UNKNOWN_HEADER: FixtureOptions = FixtureOptions {
        gitlink: false,
        unknown_header: true,
    };

    /// The script's command-line flags for this variant.
    pub fn script_args(&self) -> Vec<&'static str> {
        let mut args = Vec::new();
        if !self.gitlink {
            args.push("--without-gitlink");
        }
        if self.unknown_header {
            args.push("--with-unknown-header");
        }
        args
    }
}

/// A built fixture (see the header of make-tricky-repo.sh for its contents).
#[derive(Clone, Debug)]
pub struct TrickyRepo {
    /// The OUTDIR given to the script.
    pub root: PathBuf,
    /// `root/repo`: the SHA-1 fixture repository (non-bare, `main` checked out).
    pub repo_path: PathBuf,
    /// `root/sub`: the repository the gitlink points into (always built).
    pub sub_path: PathBuf,
    /// `root/compat-era-map.txt`: "<sha1> <sha256>" pairs git recorded itself.
    pub compat_era_map: PathBuf,
    /// `root/gnupg`: public keyring of the signing key (GNUPGHOME for `git verify-*`).
    pub gnupg_home: PathBuf,
    /// HEAD of `sub` (the gitlink target, also when the gitlink is left out).
    pub sub_head: String,
    pub options: FixtureOptions,
}

impl TrickyRepo {
    /// The repository's git dir (`repo/.git`).
    pub fn git_dir(&self) -> PathBuf {
        self.repo_path.join(".git")
    }

    /// refname -> object id, for every ref (`git for-each-ref`).
    pub fn refs(&self) -> BTreeMap<String, String> {
        git(
            &self.repo_path,
            &["for-each-ref", "--format=%(refname) %(objectname)"],
        )
        .lines()
        .map(|l| {
            let (name, id) = l.split_once(' ').unwrap();
            (name.to_owned(), id.to_owned())
        })
        .collect()
    }

    /// `rev-parse` of `rev` in the fixture repository.
    pub fn rev(&self, rev: &str) -> String {
        git(
            &self.repo_path,
            &["rev-parse", "--verify", "--end-of-options", rev],
        )
    }

    /// `git verify-tag TAG` in `repo` passes with this fixture's keyring.
    pub fn assert_tag_verifies(&self, repo: &Path, tag: &str) {
        let out = git_command(repo)
            .env("GNUPGHOME", &self.gnupg_home)
            .args(["verify-tag", tag])
            .output()
            .expect("git verify-tag");
        assert!(
            out.status.success(),
            "verify-tag {tag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// git's own compat-era pairs (sha1 -> sha256).
    pub fn compat_era_pairs(&self) -> BTreeMap<String, String> {
        read_pairs(&self.compat_era_map)
    }
}

/// Runs make-tricky-repo.sh into `out` (which must not exist or be empty).
fn build_tricky_repo(out: &Path, opts: FixtureOptions) -> TrickyRepo {
    let mut cmd = Command::new("bash");
    isolate(&mut cmd);
    let output = cmd
        .arg(FIXTURE_SCRIPT)
        .args(opts.script_args())
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash: {e}"));
    expect_success(
        &format!(
            "{FIXTURE_SCRIPT} {:?} {}",
            opts.script_args(),
            out.display()
        ),
        output,
    );
    let root = fs::canonicalize(out).expect("fixture dir");
    let sub_path = root.join("sub");
    let sub_head = git(&sub_path, &["rev-parse", "HEAD"]);
    TrickyRepo {
        repo_path: root.join("repo"),
        compat_era_map: root.join("compat-era-map.txt"),
        gnupg_home: root.join("gnupg"),
        sub_path,
        sub_head,
        options: opts,
        root,
    }
}

/// A cache of one value per fixture variant, for [`once_per_variant`].
pub type PerVariant<T> = Mutex<BTreeMap<FixtureOptions, &'static OnceLock<T>>>;

/// The value for variant `opts` in `cache`, made by `make` once per test
/// process. Concurrent callers for one variant wait for the one `make`;
/// other variants are not held up meanwhile.
pub fn once_per_variant<T: Send + Sync>(
    cache: &'static PerVariant<T>,
    opts: FixtureOptions,
    make: impl FnOnce() -> T,
) -> &'static T {
    let cell: &'static OnceLock<T> = cache
        .lock()
        .unwrap()
        .entry(opts)
        .or_insert_with(|| Box::leak(Box::new(OnceLock::new())));
    cell.get_or_init(make)
}

/// The fixture variant `opts`, built once per test process.  Read-only:
/// copy it to mutate.
pub fn tricky_repo(opts: FixtureOptions) -> &'static TrickyRepo {
    static BUILT: PerVariant<TrickyRepo> = Mutex::new(BTreeMap::new());
    once_per_variant(&BUILT, opts, || {
        let name = format!(
            "fixture{}{}",
            if opts.gitlink { "-gitlink" } else { "" },
            if opts.unknown_header {
                "-unknown-header"
            } else {
                ""
            }
        );
        build_tricky_repo(&scratch_root().join(name), opts)
    })
}

/// The default fixture (no gitlink, no unknown header).
pub fn default_repo() -> &'static TrickyRepo {
    tricky_repo(FixtureOptions::default())
}
