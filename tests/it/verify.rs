//! `git-rehash verify`: a clean conversion verifies (with and without
//! SOURCE); a corrupted map row, pack byte or ref is caught and named.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::converted::default_conversion;
use crate::support::file_tree::copy_dir;
use crate::support::fixture::default_repo;
use crate::support::git::{git, git_with_input};
use crate::support::library::{HashKind, IdMap, MapRow, ObjectId, ObjectKind, map_path};
use crate::support::process::stdout_text;
use crate::support::rehash::{rehash_command, rehash_verify};
use crate::support::repo_files::pack_files;
use crate::support::scratch::scratch_dir;

/// The shared conversion of the default fixture. Read-only: tests that
/// corrupt something work on a copy ([`private_copy`]).
fn converted() -> &'static Path {
    &default_conversion().dest
}

/// A private copy of the shared conversion, to damage.
fn private_copy(label: &str) -> PathBuf {
    let dest = scratch_dir(label).join("dest.git");
    copy_dir(converted(), &dest);
    dest
}

fn assert_fails_mentioning(out: &Output, needles: &[&str]) {
    let text = stdout_text(out);
    assert_eq!(out.status.code(), Some(1), "verify should fail:\n{text}");
    assert!(text.contains("FAILED"), "no FAILED summary:\n{text}");
    for needle in needles {
        assert!(
            text.contains(needle),
            "output does not mention {needle}:\n{text}"
        );
    }
}

/// Writes `row` into DEST's map, replacing the row that has the same
/// SHA-1 or SHA-256 name.
fn replace_row(dest: &Path, row: MapRow) {
    let mut map = IdMap::open_rw(&map_path(dest)).unwrap();
    map.load([row]).unwrap();
}

/// sha1 -> row, for every commit in the map.
fn commit_rows(dest: &Path) -> Vec<MapRow> {
    let map = IdMap::open_read_only(&map_path(dest)).unwrap();
    let mut rows = Vec::new();
    map.for_each(|row| {
        if row.kind == ObjectKind::Commit {
            rows.push(row);
        }
        Ok(())
    })
    .unwrap();
    rows
}

fn head_row(dest: &Path) -> MapRow {
    let head_sha256 = git(dest, &["rev-parse", "refs/heads/main"]);
    commit_rows(dest)
        .into_iter()
        .find(|r| r.sha256.to_hex() == head_sha256)
        .expect("main's commit is in the map")
}

#[test]
fn clean_conversion_verifies() {
    let out = rehash_verify(converted(), None);
    let text = stdout_text(&out);
    assert!(
        out.status.success(),
        "verify failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with("ok: ") || text.contains("\nok: "),
        "{text}"
    );
    assert!(!text.contains("error:"), "{text}");
}

#[test]
fn clean_conversion_verifies_against_source() {
    let out = rehash_verify(converted(), Some(&default_repo().repo_path));
    let text = stdout_text(&out);
    assert!(
        out.status.success(),
        "verify failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("source objects"), "{text}");
    // The fixture's tag whose signature lacks its final LF cannot be
    // translated back exactly (git's own translation loses a blank line);
    // SOURCE confirms it.
    assert!(text.contains("checked forward against SOURCE"), "{text}");
}

#[test]
fn corrupted_map_row_sha1_is_caught() {
    let dest = private_copy("verify-bad-sha1");
    let head = head_row(&dest);
    let bogus = ObjectId::Sha1([0x5a; 20]);
    // INSERT OR REPLACE on the unique SHA-256 index replaces main's row.
    replace_row(
        &dest,
        MapRow {
            sha1: bogus,
            ..head
        },
    );
    let out = rehash_verify(&dest, None);
    assert_fails_mentioning(
        &out,
        &[&head.sha256.to_hex(), &bogus.to_hex(), &head.sha1.to_hex()],
    );
    let out = rehash_verify(&dest, Some(&default_repo().repo_path));
    assert_fails_mentioning(&out, &[&head.sha1.to_hex(), "has no row in the map"]);
    // --json: the report alone on stdout, the problems in it, status
    // refused (exit 1); the text goes to stderr.
    let out = rehash_command()
        .args(["verify", "--quiet", "--json"])
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["command"], "verify");
    assert_eq!(report["status"], "refused");
    assert_eq!(report["exit_code"], 1);
    assert_eq!(report["result"]["clean"], false);
    let problems = report["result"]["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p.as_str().unwrap().contains(&bogus.to_hex())),
        "{report}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("FAILED"));
}

#[test]
fn corrupted_map_row_sha256_is_caught() {
    let dest = private_copy("verify-bad-sha256");
    let head = head_row(&dest);
    let ObjectId::Sha256(mut raw) = head.sha256 else {
        unreachable!()
    };
    raw[31] ^= 1;
    let bogus = ObjectId::Sha256(raw);
    replace_row(
        &dest,
        MapRow {
            sha256: bogus,
            ..head
        },
    );
    let out = rehash_verify(&dest, None);
    assert_fails_mentioning(
        &out,
        &[
            &format!(
                "object {} (commit) is in DEST but has no row in the map",
                head.sha256
            ),
            &format!("{} -> {bogus} (commit) has no object in DEST", head.sha1),
        ],
    );
}

#[test]
fn corrupted_map_row_type_is_caught() {
    let dest = private_copy("verify-bad-type");
    let head = head_row(&dest);
    replace_row(
        &dest,
        MapRow {
            kind: ObjectKind::Tag,
            ..head
        },
    );
    let out = rehash_verify(&dest, None);
    assert_fails_mentioning(
        &out,
        &[&format!(
            "object {} is a commit but the map records type tag",
            head.sha256
        )],
    );
}

#[test]
fn corrupted_pack_byte_is_caught() {
    let dest = private_copy("verify-bad-pack");
    let pack = pack_files(&dest)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "pack"))
        .expect("a pack");
    let mut bytes = std::fs::read(&pack).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    std::fs::write(&pack, &bytes).unwrap();
    // The entry holding the byte: the last one starting at or before it
    // (the idx is intact).
    let idx = pack.with_extension("idx");
    let listing = git_with_input(
        &dest,
        &["show-index", "--object-format=sha256"],
        &std::fs::read(&idx).unwrap(),
    );
    let damaged = String::from_utf8(listing)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some((f.next()?.parse::<usize>().ok()?, f.next()?.to_owned()))
        })
        .filter(|&(offset, _)| offset <= at)
        .max()
        .map(|(_, id)| id)
        .expect("an entry holds the byte");
    let out = rehash_verify(&dest, None);
    let name = pack.file_name().unwrap().to_string_lossy().into_owned();
    assert_fails_mentioning(&out, &[&name, "checksum does not match"]);
    // Besides the checksum, the damaged object itself is named: by its
    // CRC32 at least, wherever in the entry the byte is (padding bits of
    // a zlib stream change nothing that inflating sees).
    let text = stdout_text(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with("error: ") && l.contains(&damaged) && l.contains("CRC32")),
        "the damaged object {damaged} is not named:\n{text}"
    );
}

#[test]
fn corrupted_ref_is_caught() {
    let dest = private_copy("verify-bad-ref");
    // Point a branch at another commit: only SOURCE can tell.
    let other = commit_rows(&dest)
        .into_iter()
        .find(|r| r.sha256.to_hex() != git(&dest, &["rev-parse", "refs/heads/main"]))
        .unwrap();
    git(
        &dest,
        &[
            "update-ref",
            "--no-deref",
            "refs/heads/main",
            &other.sha256.to_hex(),
        ],
    );
    let clean = rehash_verify(&dest, None);
    assert!(clean.status.success(), "{}", stdout_text(&clean));
    let out = rehash_verify(&dest, Some(&default_repo().repo_path));
    assert_fails_mentioning(&out, &["ref refs/heads/main", &other.sha256.to_hex()]);

    // A ref naming no object of DEST is caught even without SOURCE.
    let missing = HashKind::Sha256.empty_blob().to_hex().replace('4', "5");
    std::fs::write(dest.join("refs/heads/dangling"), format!("{missing}\n")).unwrap();
    let out = rehash_verify(&dest, None);
    assert_fails_mentioning(&out, &["ref refs/heads/dangling", &missing]);
}
