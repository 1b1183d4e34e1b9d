//! The command line's mistakes, made as an admin makes them: each ends
//! with the exit status of its class (2: the command is wrong), `--json`
//! reports the same class, the message names the path and a next
//! step that is safe (never an option the command lacks, never deleting a
//! repository git-rehash did not make), and nothing is created or deleted
//! that was not there.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::file_tree::{copy_dir, tree_checksums};
use crate::support::git::git;
use crate::support::refusal::USAGE;
use crate::support::rehash::{rehash_command, rehash_convert_ok};
use crate::support::scratch::scratch_dir;

/// One mistake: the arguments, and what the message must name.
struct Mistake {
    what: &'static str,
    args: Vec<OsString>,
    mentions: Vec<String>,
}

fn mistake(what: &'static str, args: &[&dyn AsRef<std::ffi::OsStr>], mentions: &[&str]) -> Mistake {
    Mistake {
        what,
        args: args.iter().map(|a| a.as_ref().to_os_string()).collect(),
        mentions: mentions.iter().map(|m| m.to_string()).collect(),
    }
}

/// The repositories and paths the mistakes name, all under one root.
struct Scene {
    root: PathBuf,
    sha1: PathBuf,
    sha256: PathBuf,
    /// A repository whose config names an object format git-rehash does
    /// not convert.
    sha512: PathBuf,
    /// `converted` converted back: a SHA-1 DEST.
    reversed: PathBuf,
    converted: PathBuf,
    plain_dir: PathBuf,
    file: PathBuf,
    missing: PathBuf,
    dest: PathBuf,
}

fn scene() -> Scene {
    let root = scratch_dir("cli-mistakes");
    let sha1 = root.join("sha1");
    std::fs::create_dir_all(&sha1).unwrap();
    git(&sha1, &["init", "-q", "-b", "main"]);
    std::fs::write(sha1.join("a.txt"), b"a\n").unwrap();
    git(&sha1, &["add", "a.txt"]);
    git(&sha1, &["commit", "-q", "-m", "one"]);
    let sha256 = root.join("sha256.git");
    git(
        &root,
        &[
            "init",
            "-q",
            "--bare",
            "--object-format=sha256",
            "sha256.git",
        ],
    );
    let sha512 = root.join("sha512.git");
    copy_dir(&sha256, &sha512);
    let config = sha512.join("config");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace("objectformat = sha256", "objectformat = sha512"),
    )
    .unwrap();
    let converted = root.join("converted.git");
    rehash_convert_ok(&sha1, &converted, &["--quiet"]);
    let reversed = root.join("reversed.git");
    rehash_convert_ok(&converted, &reversed, &["--quiet"]);
    let plain_dir = root.join("plain");
    std::fs::create_dir_all(&plain_dir).unwrap();
    std::fs::write(plain_dir.join("README"), b"not a repository\n").unwrap();
    let file = root.join("afile");
    std::fs::write(&file, b"a file\n").unwrap();
    Scene {
        missing: root.join("no-such-repo.git"),
        dest: root.join("dest.git"),
        root,
        sha1,
        sha256,
        sha512,
        reversed,
        converted,
        plain_dir,
        file,
    }
}

fn path_str(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn each_mistake_exits_2_naming_the_path_and_a_safe_next_step() {
    let s = scene();
    let (sha1, sha256, converted, reversed) = (&s.sha1, &s.sha256, &s.converted, &s.reversed);
    let (missing, dest, file, plain) = (&s.missing, &s.dest, &s.file, &s.plain_dir);
    let exists = "does not exist; give the path of an existing git repository";
    let not_ours = "is not a git-rehash conversion";
    let name_dest = "name the DEST a `git-rehash convert` made";
    let mistakes = [
        mistake(
            "missing SOURCE",
            &[&"convert", missing, dest],
            &[&path_str(missing), exists],
        ),
        mistake(
            "SOURCE that is not a repository",
            &[&"convert", plain, dest],
            &[
                &format!("{} is not a git repository", plain.display()),
                "give the path of a git repository",
            ],
        ),
        mistake(
            "SOURCE in an object format git-rehash does not convert",
            &[&"convert", &s.sha512, dest],
            &[
                &path_str(&s.sha512),
                "uses object format sha512",
                "name a SHA-1 or SHA-256 repository",
            ],
        ),
        mistake(
            "DEST an existing file",
            &[&"convert", sha1, file],
            &[
                &format!("{} is a file, not a directory", file.display()),
                "Name a DEST in a directory you can write to",
            ],
        ),
        mistake(
            "DEST under an existing file",
            &[&"convert", sha1, &file.join("x.git")],
            &[&format!("{} is a file, not a directory", file.display())],
        ),
        mistake(
            "DEST not empty, not ours",
            &[&"convert", sha1, plain],
            &[
                &path_str(plain),
                "git-rehash did not make it",
                "Name a new directory",
            ],
        ),
        mistake(
            "repack of a SHA-1 repository",
            &[&"repack", sha1],
            &[&path_str(sha1), not_ours, name_dest],
        ),
        mistake(
            "repack of a SHA-256 repository git made",
            &[&"repack", sha256],
            &[&path_str(sha256), not_ours, name_dest],
        ),
        mistake(
            "verify of a SHA-1 repository",
            &[&"verify", sha1],
            &[&path_str(sha1), not_ours, name_dest],
        ),
        mistake(
            "verify of a SHA-256 DEST against a SHA-256 SOURCE",
            &[&"verify", converted, &"--source", sha256],
            &[
                &path_str(sha256),
                "uses object format sha256",
                "DEST was converted from sha1",
            ],
        ),
        mistake(
            "verify of a SHA-1 DEST against a SHA-1 SOURCE",
            &[&"verify", reversed, &"--source", sha1],
            &[
                &path_str(sha1),
                "uses object format sha1",
                "DEST was converted from sha256",
            ],
        ),
        mistake(
            "export-sha1 of a SHA-1 repository",
            &[&"export-sha1", sha1, &s.root.join("mirror.git")],
            &[
                &path_str(sha1),
                "not a SHA-256 repository",
                "`git-rehash convert` made",
            ],
        ),
        mistake(
            "export-sha1 of a SHA-1 DEST, converted from SHA-256",
            &[&"export-sha1", reversed, &s.root.join("mirror.git")],
            &[
                &path_str(reversed),
                "SHA-1 side of a conversion from SHA-256",
                "push it",
            ],
        ),
        mistake(
            "export-sha1 into a MIRROR that does not exist",
            &[&"export-sha1", converted, missing],
            &[&path_str(missing), "git init --bare MIRROR", exists],
        ),
        mistake(
            "map of a repository git-rehash did not make",
            &[&"map", &"--repo", sha1, &"abcd"],
            &[&path_str(sha1), "no map database", "--repo DEST"],
        ),
        mistake(
            "a typo'd option of convert",
            &[&"convert", &"--jbos", &"2", sha1, dest],
            &["'--jbos'", "a similar argument exists: '--jobs'"],
        ),
        mistake(
            "a typo'd option of repack",
            &[&"repack", &"--quite", converted],
            &["'--quite'", "a similar argument exists: '--quiet'"],
        ),
    ];
    let before = tree_checksums(&s.root);
    for m in &mistakes {
        let out = rehash_command().args(&m.args).output().unwrap();
        let stderr = check_usage(m, &out);
        // A repository git-rehash did not make is never to be deleted.
        assert!(!stderr.contains("--force"), "{}: {stderr}", m.what);
        // Every command that has --json reports the same class.
        let command = m.args[0].to_str().unwrap();
        if ["convert", "export-sha1", "repack", "verify"].contains(&command) {
            let mut args = m.args.clone();
            args.insert(1, "--json".into());
            let out = rehash_command().args(&args).output().unwrap();
            check_usage(m, &out);
            let report = json_report(&out);
            if command != "convert" {
                assert_eq!(report["command"], command, "{}", m.what);
            }
            assert_eq!(report["status"], "usage", "{}: {report}", m.what);
            assert_eq!(report["exit_code"], USAGE, "{}", m.what);
            assert_eq!(report["error"]["kind"], "usage", "{}", m.what);
            assert_eq!(report["result"], Value::Null, "{}", m.what);
        }
        assert_unchanged(&before, &s.root, m.what);
    }
}

/// Nothing below `root` was created, deleted or changed since `before`;
/// the failure names the entries that were. A reader of a conversion's
/// map (verify) may leave SQLite's `-wal` and `-shm` files beside it, as
/// any reader of a WAL database does: they hold no change. A run that took
/// DEST's lock before it stopped leaves its pid in the lock file.
fn assert_unchanged(before: &BTreeMap<PathBuf, [u8; 32]>, root: &Path, what: &str) {
    let after = tree_checksums(root);
    let sqlite_reader = |path: &Path| {
        let name = path.to_string_lossy();
        name.ends_with("map.sqlite-wal") || name.ends_with("map.sqlite-shm")
    };
    let lock = |path: &Path| path.ends_with("rehash/convert.lock");
    let changed: Vec<&PathBuf> = before
        .keys()
        .chain(after.keys())
        .filter(|path| match (before.get(*path), after.get(*path)) {
            _ if sqlite_reader(path) => false,
            (Some(_), Some(_)) if lock(path) => false,
            (was, is) => was != is,
        })
        .collect();
    assert!(changed.is_empty(), "{what}: changed {changed:?}");
}

/// Exit status 2, a message holding every mention, no panic. Returns
/// stderr.
fn check_usage(m: &Mistake, out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(USAGE), "{}: {stderr}", m.what);
    assert!(
        stderr.starts_with("git-rehash: error: ") || stderr.starts_with("error: "),
        "{}: {stderr}",
        m.what
    );
    for mention in &m.mentions {
        assert!(
            stderr.contains(mention.as_str()),
            "{}: the message should name {mention:?}:\n{stderr}",
            m.what
        );
    }
    assert!(!stderr.contains("panicked"), "{}: {stderr}", m.what);
    stderr
}

fn json_report(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "one line of JSON: {stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// A DEST in a directory this user may not write: as root every write is
/// allowed, so the run drops to the `nobody` user through `setpriv`.
#[test]
fn a_dest_that_cannot_be_written_says_why() {
    let Some(unprivileged_rehash) = unprivileged() else {
        return;
    };
    // Under the system's temporary directory (every user may enter it),
    // not the scratch root, whose parents may be closed to other users.
    let root = tempfile::Builder::new()
        .prefix("rehash-unwritable")
        .tempdir()
        .unwrap();
    let root = root.path();
    set_mode(root, 0o755);
    let sha1 = root.join("sha1");
    std::fs::create_dir_all(&sha1).unwrap();
    git(&sha1, &["init", "-q", "-b", "main"]);
    git(&sha1, &["commit", "-q", "--allow-empty", "-m", "one"]);
    let closed = root.join("closed");
    std::fs::create_dir(&closed).unwrap();
    set_mode(&closed, 0o755);
    let dest = closed.join("x.git");
    let before = tree_checksums(root);
    for json in [false, true] {
        let mut cmd = unprivileged_rehash();
        cmd.arg("convert");
        if json {
            cmd.arg("--json");
        }
        let out = cmd.arg(&sha1).arg(&dest).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(USAGE), "{stderr}");
        for mention in [
            format!("cannot create the destination {}", dest.display()),
            format!("no permission to write in {}", closed.display()),
            "Name a DEST in a directory you can write to".to_string(),
        ] {
            assert!(stderr.contains(&mention), "{mention:?}:\n{stderr}");
        }
        if json {
            assert_eq!(json_report(&out)["status"], "usage");
        }
        assert_unchanged(&before, root, "convert as another user");
    }
}

/// A way to run git-rehash as a user without root's rights, or `None`
/// (printed) when there is none.
fn unprivileged() -> Option<fn() -> Command> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some(rehash_command);
    }
    let runs = as_nobody()
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        eprintln!(
            "skipped: cannot run {} as uid 65534 through setpriv (not installed, or a \
             directory above the binary is closed to other users)",
            env!("CARGO_BIN_EXE_git-rehash")
        );
        return None;
    }
    Some(as_nobody)
}

/// [`rehash_command`] run by `setpriv` as uid and gid 65534 (nobody).
fn as_nobody() -> Command {
    let rehash = rehash_command();
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(rehash.get_program())
        .args(rehash.get_args());
    for (key, value) in rehash.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    cmd
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}
