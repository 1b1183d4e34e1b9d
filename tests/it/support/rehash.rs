//! The binary under test, `git-rehash`, built by cargo for this test run.

use std::path::Path;
use std::process::{Command, Output};

use super::git::isolate;
use super::oracle::{OracleMap, parse_oracle};

/// `git-rehash` with the same isolated environment as git (it spawns git in
/// some tests, which must not see the user's config either).
pub fn rehash_command() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rehash"));
    isolate(&mut cmd);
    cmd
}

/// Runs `cmd`, which must succeed; panics with its status and stderr.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", cmd.get_program()));
    assert!(
        out.status.success(),
        "{:?} failed ({}): {}",
        cmd.get_args().collect::<Vec<_>>(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
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
    run_ok(
        rehash_command()
            .arg("convert")
            .args(extra)
            .arg(source)
            .arg(dest),
    )
}

/// `git-rehash map --repo DEST [args]`, whatever its outcome.
pub fn rehash_map(dest: &Path, args: &[&str]) -> Output {
    rehash_command()
        .args(["map", "--repo"])
        .arg(dest)
        .args(args)
        .output()
        .expect("run git-rehash map")
}

/// `git-rehash map --repo DEST --export`: "<sha1> <sha256> <type>" lines.
pub fn rehash_export_text(dest: &Path) -> String {
    let out = rehash_map(dest, &["--export"]);
    assert!(
        out.status.success(),
        "map --export failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 export")
}

/// sha1 -> (sha256, type), from `git-rehash map --repo DEST --export`.
pub fn rehash_export_map(dest: &Path) -> OracleMap {
    parse_oracle(&rehash_export_text(dest))
}

/// `git-rehash verify --quiet DEST [--source SOURCE]`, whatever its outcome.
pub fn rehash_verify(dest: &Path, source: Option<&Path>) -> Output {
    let mut cmd = rehash_command();
    cmd.args(["verify", "--quiet"]).arg(dest);
    if let Some(source) = source {
        cmd.arg("--source").arg(source);
    }
    cmd.output().expect("run git-rehash verify")
}

/// `git-rehash verify --quiet DEST --source SOURCE`, which must succeed;
/// returns its report.
pub fn rehash_verify_ok(dest: &Path, source: &Path) -> String {
    let out = rehash_verify(dest, Some(source));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "verify failed:\n{text}");
    text
}
