//! The ground truth: the SHA-1 -> SHA-256 map git itself computes
//! (`tests/fixtures/oracle.sh`, through `extensions.compatObjectFormat`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use super::fixture::{FixtureOptions, PerVariant, TrickyRepo, once_per_variant, tricky_repo};
use super::git::isolate;
use super::scratch::{scratch_dir, scratch_root};

/// `tests/fixtures/oracle.sh`
pub const ORACLE_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/oracle.sh");

/// sha1 -> (sha256, type), as printed by oracle.sh (and `map --export`).
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
fn write_oracle_map(map: &OracleMap, path: &Path) {
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
/// file it is written to (a ready `--gitlink-map`). The file is in scratch
/// space, not in the fixture: tests check that the fixture stays
/// byte-identical while others run.
pub fn sub_oracle(repo: &'static TrickyRepo) -> (&'static OracleMap, &'static Path) {
    static CACHE: PerVariant<(OracleMap, PathBuf)> = Mutex::new(BTreeMap::new());
    let (map, file) = once_per_variant(&CACHE, repo.options, || {
        let map = oracle_map(&repo.sub_path, true, &[]);
        let file = scratch_dir("sub-oracle").join("sub-map.txt");
        write_oracle_map(&map, &file);
        (map, file)
    });
    (map, file)
}

/// The complete ground truth (`--all-objects`) of fixture variant `opts`,
/// cached per process.  For the gitlink variant the submodule's map is passed
/// as `--gitlink-map`, so every object is mapped; the unknown-header variant
/// panics (git refuses that commit) -- use [`oracle_run`] for it.
pub fn tricky_oracle(opts: FixtureOptions) -> &'static OracleMap {
    static CACHE: PerVariant<OracleMap> = Mutex::new(BTreeMap::new());
    once_per_variant(&CACHE, opts, || {
        let repo = tricky_repo(opts);
        if opts.gitlink {
            let (_, sub_map) = sub_oracle(repo);
            oracle_map(&repo.repo_path, true, &[sub_map])
        } else {
            oracle_map(&repo.repo_path, true, &[])
        }
    })
}

/// One (sha1, sha256, type) of each object type of the default fixture,
/// from the oracle.
pub fn one_of_each_type() -> Vec<(String, String, String)> {
    let oracle = tricky_oracle(FixtureOptions::default());
    let mut picked = Vec::new();
    for kind in ["commit", "tree", "blob", "tag"] {
        let (s1, (s256, t)) = oracle
            .iter()
            .find(|(_, (_, t))| t == kind)
            .unwrap_or_else(|| panic!("the fixture has a {kind}"));
        picked.push((s1.clone(), s256.clone(), t.clone()));
    }
    picked
}
