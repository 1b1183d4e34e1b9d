//! Shared helpers for git-rehash integration tests.
//!
//! * [`git`] / [`git_bytes`] / [`git_command`]: run the real `git` with an
//!   isolated, deterministic environment.
//! * [`tricky_repo`]: the fixture of `tests/fixtures/make-tricky-repo.sh`,
//!   built once per test process and variant, shared by every test.
//!   **Shared fixtures are read-only**: a test that wants to change a
//!   repository must work on a copy ([`copy_dir`]).
//! * [`oracle_map`] / [`oracle_run`] / [`tricky_oracle`]: the ground-truth
//!   SHA-1 -> SHA-256 map computed by git itself (`tests/fixtures/oracle.sh`).
//! * [`tree_checksums`]: fingerprint a directory tree ("source unchanged").
//! * [`rehash_bin`] / [`rehash_command`]: the binary under test.
//!
//! Every test binary includes this file with `mod common;`, so not every
//! helper is used everywhere.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

/// `tests/fixtures/make-tricky-repo.sh`
pub const FIXTURE_SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/make-tricky-repo.sh"
);
/// `tests/fixtures/oracle.sh`
pub const ORACLE_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/oracle.sh");

/// Fixed identity and clock of [`git_command`].
pub const TEST_DATE: &str = "1700000000 +0000";

/// The git-rehash binary built by cargo for this test run.
pub fn rehash_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-rehash"))
}

/// `git-rehash` with the same isolated environment as [`git_command`]
/// (git-rehash may spawn git in tests, and must not see the user's config).
pub fn rehash_command() -> Command {
    let mut cmd = Command::new(rehash_bin());
    isolate(&mut cmd);
    cmd
}

/// `git-rehash convert [extra] SOURCE DEST`, whatever its outcome.
pub fn rehash_convert(source: &Path, dest: &Path, extra: &[&str]) -> Output {
    rehash_command()
        .arg("convert")
        .args(extra)
        .arg(source)
        .arg(dest)
        .output()
        .expect("run git-rehash convert")
}

/// [`rehash_convert`] that must succeed.
pub fn rehash_convert_ok(source: &Path, dest: &Path, extra: &[&str]) -> Output {
    let out = rehash_convert(source, dest, extra);
    assert!(
        out.status.success(),
        "convert {extra:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// sha1 -> (sha256, type), from `git-rehash map --repo DEST --export`.
pub fn rehash_export_map(dest: &Path) -> OracleMap {
    let out = rehash_command()
        .args(["map", "--repo"])
        .arg(dest)
        .arg("--export")
        .output()
        .expect("run git-rehash map");
    assert!(
        out.status.success(),
        "map --export failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_oracle(&String::from_utf8(out.stdout).expect("utf-8 export"))
}

// ------------------------------------------------------------------ scratch space

/// Per-process scratch directory under cargo's `CARGO_TARGET_TMPDIR`
/// (`target/tmp/rehash-tests/<pid>`).  Directories of test processes that no
/// longer run are removed the first time this is called.
pub fn scratch_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rehash-tests");
        fs::create_dir_all(&base).expect("create target/tmp/rehash-tests");
        if Path::new("/proc/self").exists() {
            for entry in fs::read_dir(&base).into_iter().flatten().flatten() {
                let name = entry.file_name();
                let alive = name
                    .to_str()
                    .and_then(|s| s.parse::<u32>().ok())
                    .is_some_and(|pid| {
                        pid == std::process::id()
                            || Path::new("/proc").join(pid.to_string()).exists()
                    });
                if !alive {
                    let _ = fs::remove_dir_all(entry.path());
                }
            }
        }
        let root = base.join(std::process::id().to_string());
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("home")).expect("create scratch root");
        root
    })
}

/// A fresh, empty directory inside [`scratch_root`] (kept until the next run).
/// Prefer `tempfile::tempdir()` when the directory may disappear with the test.
pub fn scratch_dir(label: &str) -> PathBuf {
    static N: Mutex<u32> = Mutex::new(0);
    let n = {
        let mut n = N.lock().unwrap();
        *n += 1;
        *n
    };
    let dir = scratch_root().join(format!("{label}-{n}"));
    fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

// ------------------------------------------------------------------ git

/// Make `cmd` independent of the caller's environment: no system/global git
/// config, HOME in the scratch area, C locale, UTC, fixed author/committer.
fn isolate(cmd: &mut Command) {
    for (key, _) in std::env::vars_os() {
        if key.to_str().is_some_and(|k| k.starts_with("GIT_")) {
            cmd.env_remove(&key);
        }
    }
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", scratch_root().join("home"))
        .env("XDG_CONFIG_HOME", scratch_root().join("home/.config"))
        .env("LC_ALL", "C")
        .env("LANG", "C")
        .env("TZ", "UTC")
        .env("GIT_AUTHOR_NAME", "A U Thor")
        .env("GIT_AUTHOR_EMAIL", "author@example.invalid")
        .env("GIT_AUTHOR_DATE", TEST_DATE)
        .env("GIT_COMMITTER_NAME", "C O Mitter")
        .env("GIT_COMMITTER_EMAIL", "committer@example.invalid")
        .env("GIT_COMMITTER_DATE", TEST_DATE)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat");
}

/// `git -C dir` with the isolated environment; add args and run it yourself.
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    isolate(&mut cmd);
    cmd.arg("-C").arg(dir);
    cmd
}

fn describe(dir: &Path, args: &[&str]) -> String {
    format!("git -C {} {}", dir.display(), args.join(" "))
}

fn check(what: String, out: Output) -> Vec<u8> {
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n--- stderr ---\n{}--- stdout ---\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
    }
    out.stdout
}

/// Run git in `dir`; panic with its stderr on failure; return stdout bytes.
pub fn git_bytes(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = git_command(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run git: {e}"));
    check(describe(dir, args), out)
}

/// Like [`git_bytes`], as a string with the trailing newline(s) removed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = String::from_utf8(git_bytes(dir, args)).unwrap_or_else(|_| {
        panic!(
            "{}: output is not UTF-8 (use git_bytes)",
            describe(dir, args)
        )
    });
    out.trim_end_matches('\n').to_owned()
}

/// Run git in `dir` with `input` on stdin; panic on failure; return stdout.
pub fn git_with_input(dir: &Path, args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = git_command(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run git: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("wait for git");
    feeder.join().unwrap().expect("write git stdin");
    check(describe(dir, args), out)
}

/// Run git in `dir` and return the raw [`Output`] (no panic on failure).
pub fn git_output(dir: &Path, args: &[&str]) -> Output {
    git_command(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run git: {e}"))
}

// ------------------------------------------------------------------ fixture

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

    /// git's own compat-era pairs (sha1 -> sha256).
    pub fn compat_era_pairs(&self) -> BTreeMap<String, String> {
        read_pairs(&self.compat_era_map)
    }
}

/// Run make-tricky-repo.sh into `out` (which must not exist or be empty).
pub fn build_tricky_repo(out: &Path, opts: FixtureOptions) -> TrickyRepo {
    let mut cmd = Command::new("bash");
    isolate(&mut cmd);
    let output = cmd
        .arg(FIXTURE_SCRIPT)
        .args(opts.script_args())
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash: {e}"));
    check(
        format!(
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

/// The fixture variant `opts`, built once per test process (thread-safe;
/// concurrent callers wait for the one build).  Read-only: copy it to mutate.
pub fn tricky_repo(opts: FixtureOptions) -> &'static TrickyRepo {
    static BUILT: Mutex<BTreeMap<FixtureOptions, &'static OnceLock<TrickyRepo>>> =
        Mutex::new(BTreeMap::new());
    let cell: &'static OnceLock<TrickyRepo> = BUILT
        .lock()
        .unwrap()
        .entry(opts)
        .or_insert_with(|| Box::leak(Box::new(OnceLock::new())));
    cell.get_or_init(|| {
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

// ------------------------------------------------------------------ oracle

/// sha1 -> (sha256, type), as printed by oracle.sh.
pub type OracleMap = BTreeMap<String, (String, String)>;

/// Everything oracle.sh reported.
#[derive(Clone, Debug)]
pub struct OracleRun {
    /// Mapped objects.
    pub map: OracleMap,
    /// Objects git refused: sha1 -> (type, reason).
    pub refused: BTreeMap<String, (String, String)>,
    /// Exit status: 0 all mapped, 2 some refused.
    pub status: i32,
    pub stderr: String,
}

/// Run oracle.sh on `repo` (`--all-objects` if `all_objects`, one
/// `--gitlink-map` per element of `gitlink_maps`); panics on exit statuses
/// other than 0 and 2.
pub fn oracle_run(repo: &Path, all_objects: bool, gitlink_maps: &[&Path]) -> OracleRun {
    oracle_run_with(repo, all_objects, gitlink_maps, &[])
}

/// [`oracle_run`] with extra options (e.g. `["--engine", "hash-object"]`).
pub fn oracle_run_with(
    repo: &Path,
    all_objects: bool,
    gitlink_maps: &[&Path],
    extra: &[&str],
) -> OracleRun {
    let mut cmd = Command::new("bash");
    isolate(&mut cmd);
    cmd.env("TMPDIR", scratch_root())
        .arg(ORACLE_SCRIPT)
        .arg("-q");
    if all_objects {
        cmd.arg("--all-objects");
    }
    for map in gitlink_maps {
        cmd.arg("--gitlink-map").arg(map);
    }
    cmd.args(extra).arg(repo);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let status = out.status.code().unwrap_or(-1);
    if status != 0 && status != 2 {
        panic!(
            "oracle.sh {} failed ({}):\n{stderr}",
            repo.display(),
            out.status
        );
    }
    let map = parse_oracle(&String::from_utf8(out.stdout).expect("oracle output is UTF-8"));
    let refused = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("refused: "))
        .map(|l| {
            let mut f = l.splitn(3, ' ');
            let (id, t, why) = (
                f.next().unwrap(),
                f.next().unwrap_or(""),
                f.next().unwrap_or(""),
            );
            (id.to_owned(), (t.to_owned(), why.to_owned()))
        })
        .collect();
    OracleRun {
        map,
        refused,
        status,
        stderr,
    }
}

/// The ground-truth map of `repo`; panics (with git's reasons) if git refused
/// any object.
pub fn oracle_map(repo: &Path, all_objects: bool, gitlink_maps: &[&Path]) -> OracleMap {
    let run = oracle_run(repo, all_objects, gitlink_maps);
    if run.status != 0 {
        panic!(
            "oracle.sh: git refused objects of {}:\n{}",
            repo.display(),
            run.stderr
        );
    }
    run.map
}

/// Parse "<sha1> <sha256> <type>" lines.
pub fn parse_oracle(text: &str) -> OracleMap {
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert!(
                f.len() == 3 && f[0].len() == 40 && f[1].len() == 64,
                "bad oracle line {l:?}"
            );
            (f[0].to_owned(), (f[1].to_owned(), f[2].to_owned()))
        })
        .collect()
}

/// Write `map` in oracle.sh's format (usable as a `--gitlink-map` file).
pub fn write_oracle_map(map: &OracleMap, path: &Path) {
    let text: String = map
        .iter()
        .map(|(a, (b, t))| format!("{a} {b} {t}\n"))
        .collect();
    fs::write(path, text).expect("write oracle map");
}

/// Read "<a> <b> ..." lines into a -> b.
pub fn read_pairs(path: &Path) -> BTreeMap<String, String> {
    fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some((f.next()?.to_owned(), f.next()?.to_owned()))
        })
        .collect()
}

/// Oracle map (all objects) of `sub` of the given fixture, cached, and the
/// file it is written to (`root/sub-map.txt`, a ready `--gitlink-map`).
pub fn sub_oracle(repo: &'static TrickyRepo) -> (&'static OracleMap, &'static Path) {
    static CACHE: Mutex<BTreeMap<FixtureOptions, &'static (OracleMap, PathBuf)>> =
        Mutex::new(BTreeMap::new());
    let mut cache = CACHE.lock().unwrap();
    let entry = cache.entry(repo.options).or_insert_with(|| {
        let map = oracle_map(&repo.sub_path, true, &[]);
        let file = repo.root.join("sub-map.txt");
        write_oracle_map(&map, &file);
        Box::leak(Box::new((map, file)))
    });
    (&entry.0, &entry.1)
}

/// The complete ground truth (`--all-objects`) of fixture variant `opts`,
/// cached per process.  For the gitlink variant the submodule's map is passed
/// as `--gitlink-map`, so every object is mapped; the unknown-header variant
/// panics (git refuses that commit) -- use [`oracle_run`] for it.
pub fn tricky_oracle(opts: FixtureOptions) -> &'static OracleMap {
    static CACHE: Mutex<BTreeMap<FixtureOptions, &'static OnceLock<OracleMap>>> =
        Mutex::new(BTreeMap::new());
    let cell: &'static OnceLock<OracleMap> = CACHE
        .lock()
        .unwrap()
        .entry(opts)
        .or_insert_with(|| Box::leak(Box::new(OnceLock::new())));
    cell.get_or_init(|| {
        let repo = tricky_repo(opts);
        if opts.gitlink {
            let (_, sub_map) = sub_oracle(repo);
            oracle_map(&repo.repo_path, true, &[sub_map])
        } else {
            oracle_map(&repo.repo_path, true, &[])
        }
    })
}

/// Every object of `repo`'s object database: sha1/sha256 hex -> type.
pub fn all_objects(repo: &Path) -> BTreeMap<String, String> {
    git(
        repo,
        &[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname) %(objecttype)",
        ],
    )
    .lines()
    .map(|l| {
        let (id, t) = l.split_once(' ').unwrap();
        (id.to_owned(), t.to_owned())
    })
    .collect()
}

// ------------------------------------------------------------------ packs

/// One entry of a pack: object id, offset, and the type from the entry header
/// (1 commit, 2 tree, 3 blob, 4 tag, 6 OFS_DELTA, 7 REF_DELTA).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackEntry {
    pub id: String,
    pub offset: u64,
    pub kind: u8,
}

pub const OBJ_OFS_DELTA: u8 = 6;
pub const OBJ_REF_DELTA: u8 = 7;

/// Entries of `pack` (a `.pack` path; its `.idx` must sit beside it), read
/// with `git show-index` plus the type bits of each entry's first byte.
/// `object_format` is "sha1" or "sha256".
pub fn pack_entries(pack: &Path, object_format: &str) -> Vec<PackEntry> {
    let idx = fs::read(pack.with_extension("idx")).expect("read .idx");
    let fmt = format!("--object-format={object_format}");
    let here = pack.parent().unwrap();
    let listing = git_with_input(here, &["show-index", &fmt], &idx);
    let data = fs::read(pack).expect("read .pack");
    let mut entries: Vec<PackEntry> = String::from_utf8(listing)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let offset: u64 = f[0].parse().unwrap();
            PackEntry {
                id: f[1].to_owned(),
                offset,
                kind: (data[offset as usize] >> 4) & 7,
            }
        })
        .collect();
    entries.sort_by_key(|e| e.offset);
    entries
}

/// The `.pack` files of a repository (`git_dir` = `.git` or a bare repo).
pub fn pack_files(git_dir: &Path) -> Vec<PathBuf> {
    let mut packs: Vec<PathBuf> = fs::read_dir(git_dir.join("objects/pack"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension() == Some(OsStr::new("pack")))
        .collect();
    packs.sort();
    packs
}

/// Ids of the loose objects of a repository (`objects/xx/yyyy...`).
pub fn loose_objects(git_dir: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    for dir in fs::read_dir(git_dir.join("objects"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = dir.file_name().to_string_lossy().into_owned();
        if name.len() != 2 || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        for file in fs::read_dir(dir.path()).into_iter().flatten().flatten() {
            ids.push(format!("{name}{}", file.file_name().to_string_lossy()));
        }
    }
    ids.sort();
    ids
}

// ------------------------------------------------------------------ file trees

/// Fingerprint of every entry below `dir` (relative path -> SHA-256), for
/// "the source repository is unchanged" assertions.  Regular files hash
/// `"file <mode>\0" + content`, symlinks `"symlink\0" + target`, directories
/// `"dir <mode>\0"`; so content, permission, type and added/removed entries
/// (empty directories included) all show up.  Symlinks are not followed.
pub fn tree_checksums(dir: &Path) -> BTreeMap<PathBuf, [u8; 32]> {
    fn mode(meta: &fs::Metadata) -> u32 {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            meta.permissions().mode()
        }
        #[cfg(not(unix))]
        {
            meta.permissions().readonly() as u32
        }
    }
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, [u8; 32]>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("read_dir {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let meta = fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(base).unwrap().to_path_buf();
            let mut h = Sha256::new();
            if meta.file_type().is_symlink() {
                h.update(b"symlink\0");
                h.update(fs::read_link(&path).unwrap().as_os_str().as_encoded_bytes());
            } else if meta.is_dir() {
                h.update(format!("dir {:o}\0", mode(&meta)).as_bytes());
                walk(base, &path, out);
            } else {
                h.update(format!("file {:o}\0", mode(&meta)).as_bytes());
                h.update(
                    fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display())),
                );
            }
            out.insert(rel, h.finalize().into());
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Recursively copy `src` to `dst` (files, directories, symlinks, modes).
/// Use it to get a private, mutable copy of a shared fixture.
pub fn copy_dir(src: &Path, dst: &Path) {
    fs::create_dir_all(dst).unwrap_or_else(|e| panic!("mkdir {}: {e}", dst.display()));
    for entry in fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let (from, to) = (entry.path(), dst.join(entry.file_name()));
        let ft = entry.file_type().unwrap();
        if ft.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(fs::read_link(&from).unwrap(), &to).unwrap();
        } else if ft.is_dir() {
            copy_dir(&from, &to);
        } else {
            fs::copy(&from, &to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
        }
    }
}

/// `git-rehash verify --quiet DEST --source SOURCE`, which must succeed;
/// returns its report.
pub fn rehash_verify_ok(dest: &Path, source: &Path) -> String {
    let out = rehash_command()
        .args(["verify", "--quiet"])
        .arg(dest)
        .arg("--source")
        .arg(source)
        .output()
        .expect("run git-rehash verify");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "verify failed:\n{text}");
    text
}
