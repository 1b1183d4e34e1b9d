//! `git-rehash map` and `git-rehash translate-text` against a converted
//! fixture (git is the oracle for every pair) and against small synthetic
//! maps whose ids are chosen to sit on prefix boundaries.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use common::*;
use git_rehash::hash::{HashKind, ObjectId};
use git_rehash::idmap::{IdMap, MapRow};
use git_rehash::object::ObjectKind;

struct Converted {
    dest: PathBuf,
    /// sha1 -> (sha256, type) from git itself.
    oracle: &'static OracleMap,
}

fn converted() -> &'static Converted {
    static DONE: OnceLock<Converted> = OnceLock::new();
    DONE.get_or_init(|| {
        let dest = scratch_dir("map-query").join("dest.git");
        rehash_convert_ok(&default_repo().repo_path, &dest, &["--quiet"]);
        Converted {
            dest,
            oracle: tricky_oracle(FixtureOptions::default()),
        }
    })
}

fn map_cmd(dest: &Path, args: &[&str]) -> Output {
    rehash_command()
        .arg("map")
        .arg("--repo")
        .arg(dest)
        .args(args)
        .output()
        .expect("run git-rehash map")
}

fn map_file_cmd(map: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = rehash_command()
        .arg("map")
        .arg("--map")
        .arg(map)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run git-rehash map");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || input.write_all(&data));
    let out = child.wait_with_output().unwrap();
    // A query given on the command line never reads stdin: the child may
    // exit before the feeder writes, which then sees a closed pipe.
    match feeder.join().unwrap() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.unwrap(),
    }
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 output")
}

/// One (sha1, sha256, type) per object type, from the oracle.
fn one_of_each_type() -> Vec<(String, String, String)> {
    let mut picked = Vec::new();
    for kind in ["commit", "tree", "blob", "tag"] {
        let (s1, (s256, t)) = converted()
            .oracle
            .iter()
            .find(|(_, (_, t))| t == kind)
            .unwrap_or_else(|| panic!("the fixture has a {kind}"));
        picked.push((s1.clone(), s256.clone(), t.clone()));
    }
    picked
}

// ------------------------------------------------------------------ synthetic maps

fn id(kind: HashKind, hex: &str) -> ObjectId {
    ObjectId::parse_hex(kind, hex).unwrap()
}

/// A map from `(sha1 hex, sha256 hex, kind)` rows.
fn synthetic_map(label: &str, rows: &[(&str, &str, ObjectKind)]) -> PathBuf {
    let path = scratch_dir(label).join("map.sqlite");
    let mut rows: Vec<MapRow> = rows
        .iter()
        .map(|(a, b, k)| MapRow {
            sha1: id(HashKind::Sha1, a),
            sha256: id(HashKind::Sha256, b),
            kind: *k,
        })
        .collect();
    rows.sort_by_key(|r| r.sha1);
    let mut map = IdMap::open_rw(&path).unwrap();
    map.load(rows).unwrap();
    map.finish_load().unwrap();
    path
}

fn pad(prefix: &str, len: usize, fill: char) -> String {
    let mut s = prefix.to_owned();
    while s.len() < len {
        s.push(fill);
    }
    s
}

/// Rows whose names share prefixes at half-byte boundaries:
/// sha1 abcde0…, abcdf0…, ffff…; sha256 1111…, 2222…, abcd9…;
/// plus a commit/blob pair sharing the 7-digit SHA-1 prefix 1234567.
fn boundary_map() -> &'static Path {
    static MAP: OnceLock<PathBuf> = OnceLock::new();
    MAP.get_or_init(|| {
        let a = pad("abcde", 40, '0');
        let b = pad("abcdf", 40, '0');
        let f = pad("", 40, 'f');
        let c1 = pad("12345670", 40, '0');
        let c2 = pad("12345671", 40, '0');
        let c3 = pad("7654321", 40, '0');
        let c4 = pad("7654321", 40, '1');
        let s = |p: &str| pad(p, 64, '0');
        synthetic_map(
            "boundary",
            &[
                (&a, &s("1111"), ObjectKind::Commit),
                (&b, &s("2222"), ObjectKind::Tree),
                (&f, &s("abcd9"), ObjectKind::Blob),
                (&c1, &s("3333a"), ObjectKind::Commit),
                (&c2, &s("3333b"), ObjectKind::Blob),
                (&c3, &s("4444"), ObjectKind::Commit),
                (&c4, &s("5555"), ObjectKind::Tag),
            ],
        )
    })
}

// ------------------------------------------------------------------ lookups

#[test]
fn every_object_type_both_directions_and_upper_case() {
    let c = converted();
    for (s1, s256, t) in one_of_each_type() {
        let expected = format!("{s1} {s256} {t}\n");
        for query in [
            s1.clone(),
            s256.clone(),
            s1.to_uppercase(),
            s256.to_uppercase(),
        ] {
            let out = map_cmd(&c.dest, &[&query]);
            assert_eq!(out.status.code(), Some(0), "{query}");
            assert_eq!(stdout(&out), expected, "{query}");
        }
    }
}

#[test]
fn answers_in_input_order_and_missing_exits_1() {
    let c = converted();
    let picked = one_of_each_type();
    let unknown = "0123456789abcdef0123456789abcdef01234567";
    let args = [
        picked[0].1.as_str(),
        unknown,
        picked[1].0.as_str(),
        &picked[2].0[..12],
    ];
    let out = map_cmd(&c.dest, &args);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        format!(
            "{} {} {}\n{unknown} missing\n{} {} {}\n{} {} {}\n",
            picked[0].0,
            picked[0].1,
            picked[0].2,
            picked[1].0,
            picked[1].1,
            picked[1].2,
            picked[2].0,
            picked[2].1,
            picked[2].2,
        )
    );
}

#[test]
fn prefixes_at_the_ambiguity_boundary() {
    let map = boundary_map();
    let map_arg = map.to_str().unwrap();
    let ask = |q: &str| {
        let out = rehash_command()
            .args(["map", "--map", map_arg, q])
            .output()
            .unwrap();
        (stdout(&out), out.status.code())
    };
    let a = pad("abcde", 40, '0');
    let b = pad("abcdf", 40, '0');
    let s = |p: &str| pad(p, 64, '0');
    // Four digits shared by two SHA-1 names; the fifth (a half byte) splits them.
    assert_eq!(ask("abcd"), ("abcd ambiguous\n".into(), Some(1)));
    assert_eq!(
        ask("abcde"),
        (format!("{a} {} commit\n", s("1111")), Some(0))
    );
    assert_eq!(ask("ABCDF"), (format!("{b} {} tree\n", s("2222")), Some(0)));
    assert_eq!(ask("abce"), ("abce missing\n".into(), Some(1)));
    assert_eq!(ask("abcdf1"), ("abcdf1 missing\n".into(), Some(1)));
    // A SHA-256 prefix: abcd9 is only on the SHA-256 side.
    let f = pad("", 40, 'f');
    assert_eq!(
        ask("abcd9"),
        (format!("{f} {} blob\n", s("abcd9")), Some(0))
    );
    // The all-f prefix has no upper bound.
    assert_eq!(ask("ffff"), (format!("{f} {} blob\n", s("abcd9")), Some(0)));
    // 41+ digits can only be SHA-256.
    assert_eq!(
        ask(&s("1111")[..41]),
        (format!("{a} {} commit\n", s("1111")), Some(0))
    );
    // Same prefix on both sides, different objects: ambiguous.
    assert_eq!(ask("3333"), ("3333 ambiguous\n".into(), Some(1)));
    assert_eq!(ask("1234567"), ("1234567 ambiguous\n".into(), Some(1)));
}

/// `--batch` answers from one snapshot with the map's prefix filters, a
/// different path from single ids: it must give the same answers.
#[test]
fn batch_agrees_with_single_lookups_at_the_boundaries() {
    let map = boundary_map();
    let s = |p: &str| pad(p, 64, '0');
    let queries = [
        "abcd".to_owned(),
        "abcde".into(),
        "ABCDF".into(),
        "abce".into(),
        "abcdf1".into(),
        "abcd9".into(),
        "ffff".into(),
        s("1111")[..41].into(),
        s("1111"),
        pad("abcde", 40, '0'),
        pad("abcdf", 39, '0'),
        "3333".into(),
        "1234567".into(),
        "12345670".into(),
        "7654321".into(),
        pad("7654321", 40, '1'),
    ];
    let mut single = String::new();
    for q in &queries {
        single += &stdout(&map_file_cmd(map, &[q], b""));
    }
    let out = map_file_cmd(map, &["--batch"], (queries.join("\n") + "\n").as_bytes());
    assert_eq!(stdout(&out), single);
}

/// A full SHA-1 name that is also the start of another object's SHA-256
/// name names two objects.
#[test]
fn full_sha1_matching_a_sha256_prefix_is_ambiguous() {
    let a = pad("9999", 40, '0');
    let map = synthetic_map(
        "cross",
        &[
            (&a, &pad("aaaa", 64, '0'), ObjectKind::Blob),
            (&pad("8888", 40, '0'), &pad(&a, 64, '1'), ObjectKind::Tree),
        ],
    );
    for args in [&[a.as_str()][..], &["--batch"]] {
        let out = map_file_cmd(&map, args, format!("{a}\n").as_bytes());
        assert_eq!(stdout(&out), format!("{a} ambiguous\n"), "{args:?}");
        assert_eq!(out.status.code(), Some(1));
    }
}

#[test]
fn json_format() {
    let map = boundary_map();
    let a = pad("abcde", 40, '0');
    let out = map_file_cmd(map, &["--format", "json", "abcde", "abcd", "beef"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        format!(
            "{{\"input\":\"abcde\",\"status\":\"found\",\"sha1\":\"{a}\",\"sha256\":\"{}\",\"type\":\"commit\"}}\n\
             {{\"input\":\"abcd\",\"status\":\"ambiguous\"}}\n\
             {{\"input\":\"beef\",\"status\":\"missing\"}}\n",
            pad("1111", 64, '0')
        )
    );
}

#[test]
fn usage_errors_exit_2() {
    let map = boundary_map();
    for args in [
        vec!["abc"],
        vec!["xyz12"],
        vec!["--format", "tsv", "abcd"],
        vec!["--batch", "abcd"],
        vec![],
    ] {
        let out = map_file_cmd(map, &args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    let out = rehash_command()
        .args(["map", "--map", "/nonexistent/map.sqlite", "abcd"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

// ------------------------------------------------------------------ batch

#[test]
fn batch_answers_every_line_in_order() {
    let map = boundary_map();
    let a = pad("abcde", 40, '0');
    let s = pad("1111", 64, '0');
    let input = format!("abcde\r\n  ABCD  \n\nnot-hex\n{s}\n");
    let out = map_file_cmd(map, &["--batch"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        format!("{a} {s} commit\nABCD ambiguous\n missing\nnot-hex missing\n{a} {s} commit\n")
    );
    let all_found = map_file_cmd(map, &["--batch"], format!("abcde\n{s}\n").as_bytes());
    assert_eq!(all_found.status.code(), Some(0));
}

#[test]
fn batch_converses_with_a_co_process() {
    // Each answer must arrive before the next question is written; if the
    // command buffered its output this test would wait forever.
    let map = boundary_map();
    let mut child = rehash_command()
        .args(["map", "--batch", "--format", "json", "--map"])
        .arg(map)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    for (q, status) in [
        ("abcde", "found"),
        ("abcd", "ambiguous"),
        ("0000", "missing"),
    ] {
        writeln!(input, "{q}").unwrap();
        input.flush().unwrap();
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        assert!(
            line.starts_with(&format!("{{\"input\":\"{q}\",\"status\":\"{status}\"")),
            "{line}"
        );
    }
    drop(input);
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

#[test]
fn batch_streams_long_input() {
    let map = boundary_map();
    let mut input = Vec::new();
    for _ in 0..50_000 {
        input.extend_from_slice(b"abcde\nabcd\n");
    }
    let out = map_file_cmd(map, &["--batch"], &input);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 100_000);
    assert!(
        text.lines()
            .enumerate()
            .all(|(i, l)| (i % 2 == 0) == l.starts_with("abcde0"))
    );
}

// ------------------------------------------------------------------ exports

#[test]
fn export_text_tsv_json_commit_map() {
    let c = converted();
    let oracle = c.oracle;
    let text = stdout(&map_cmd(&c.dest, &["--export"]));
    assert_eq!(&parse_oracle(&text), oracle);
    let expected_text: String = oracle
        .iter()
        .map(|(a, (b, t))| format!("{a} {b} {t}\n"))
        .collect();
    assert_eq!(text, expected_text, "sorted by SHA-1");

    let tsv = stdout(&map_cmd(&c.dest, &["--export", "--format", "tsv"]));
    assert_eq!(
        tsv,
        format!("sha1\tsha256\ttype\n{}", expected_text.replace(' ', "\t"))
    );

    let json = stdout(&map_cmd(&c.dest, &["--export", "--format", "json"]));
    let expected_json: String = oracle
        .iter()
        .map(|(a, (b, t))| format!("{{\"sha1\":\"{a}\",\"sha256\":\"{b}\",\"type\":\"{t}\"}}\n"))
        .collect();
    assert_eq!(json, expected_json);

    let commit_map = stdout(&map_cmd(&c.dest, &["--export", "--format", "commit-map"]));
    let expected_commits: String = oracle
        .iter()
        .filter(|(_, (_, t))| t == "commit")
        .map(|(a, (b, _))| format!("{a} {b}\n"))
        .collect();
    assert_eq!(
        commit_map,
        format!("old{}new\n{expected_commits}", " ".repeat(38))
    );
}

#[test]
fn loose_object_idx_export_is_read_by_git() {
    let c = converted();
    let idx = map_cmd(&c.dest, &["--export", "--format", "loose-object-idx"]);
    assert!(idx.status.success());
    let text = stdout(&idx);
    assert!(text.starts_with("# loose-object-idx\n"));
    // A private copy of DEST that git reads with SHA-1 as compat format.
    let repo = scratch_dir("loose-object-idx").join("dest.git");
    copy_dir(&c.dest, &repo);
    std::fs::write(repo.join("objects/loose-object-idx"), &idx.stdout).unwrap();
    git(&repo, &["config", "extensions.compatObjectFormat", "sha1"]);
    for (s1, s256, t) in one_of_each_type() {
        assert_eq!(
            git(&repo, &["rev-parse", "--output-object-format=sha1", &s256]),
            s1,
            "{t}"
        );
        assert_eq!(
            git(&repo, &["rev-parse", "--output-object-format=sha256", &s1]),
            s256,
            "{t}"
        );
    }
}

// ------------------------------------------------------------------ broken pipes

/// A map big enough that its export does not fit in a pipe buffer.
fn big_map() -> &'static Path {
    static MAP: OnceLock<PathBuf> = OnceLock::new();
    MAP.get_or_init(|| {
        let path = scratch_dir("big-map").join("map.sqlite");
        let mut rows: Vec<MapRow> = (0u32..100_000)
            .map(|n| {
                let body = n.to_le_bytes();
                MapRow {
                    sha1: git_rehash::object::sha1_object_id(ObjectKind::Blob, &body).unwrap(),
                    sha256: git_rehash::object::sha256_object_id(ObjectKind::Blob, &body),
                    kind: ObjectKind::Blob,
                }
            })
            .collect();
        rows.sort_by_key(|r| r.sha1);
        let mut map = IdMap::open_rw(&path).unwrap();
        map.load(rows).unwrap();
        map.finish_load().unwrap();
        path
    })
}

/// Runs `cmd` with stdout into a reader that takes one line and hangs up.
fn read_one_line_and_close(mut cmd: Command, stdin: Vec<u8>) -> (Output, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        // The command may stop reading once its stdout is gone.
        let _ = input.write_all(&stdin);
    });
    let mut first = String::new();
    {
        let mut out = BufReader::new(child.stdout.take().unwrap());
        out.read_line(&mut first).unwrap();
    }
    let mut stderr = Vec::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    (
        Output {
            status,
            stdout: Vec::new(),
            stderr,
        },
        first,
    )
}

/// Exit status 0 and nothing on stderr.
fn assert_quiet_success(out: &std::process::Output) {
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn closed_stdout_ends_quietly_with_status_0() {
    let map = big_map();
    let mut export = rehash_command();
    export.args(["map", "--export", "--map"]).arg(map);
    let (out, first) = read_one_line_and_close(export, Vec::new());
    assert_eq!(first.len(), 40 + 1 + 64 + 1 + 4 + 1, "{first}");
    assert_quiet_success(&out);

    let mut batch = rehash_command();
    batch.args(["map", "--batch", "--map"]).arg(map);
    let input = "zzzz\n".repeat(200_000).into_bytes();
    let (out, first) = read_one_line_and_close(batch, input);
    assert_eq!(first, "zzzz missing\n");
    assert_quiet_success(&out);

    let mut translate = rehash_command();
    translate.args(["translate-text", "--map"]).arg(map);
    let (out, _) = read_one_line_and_close(translate, "line\n".repeat(500_000).into_bytes());
    assert_eq!(out.status.code(), Some(0));
}

// ------------------------------------------------------------------ concurrency

#[test]
fn readers_and_a_writer_do_not_block_each_other() {
    let map = synthetic_map(
        "wal",
        &[(
            &pad("aaaa", 40, '0'),
            &pad("bbbb", 64, '0'),
            ObjectKind::Blob,
        )],
    );
    let new_sha1 = pad("cccc", 40, '0');
    // A writer in the middle of a transaction (as a running conversion is).
    let writer = rusqlite::Connection::open(&map).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    writer
        .execute(
            "INSERT INTO objects (sha1, sha256, type) VALUES (?1, ?2, 1)",
            rusqlite::params![
                id(HashKind::Sha1, &new_sha1).as_bytes(),
                id(HashKind::Sha256, &pad("dddd", 64, '0')).as_bytes()
            ],
        )
        .unwrap();
    // Readers see the last committed state, without waiting.
    let out = map_file_cmd(&map, &["aaaa", "cccc"], b"");
    assert_eq!(
        stdout(&out),
        format!(
            "{} {} blob\ncccc missing\n",
            pad("aaaa", 40, '0'),
            pad("bbbb", 64, '0')
        )
    );
    // A batch reader holding its snapshot open while the writer commits.
    let mut reader = rehash_command()
        .args(["map", "--batch", "--map"])
        .arg(&map)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = reader.stdin.take().unwrap();
    let mut output = BufReader::new(reader.stdout.take().unwrap());
    writeln!(input, "aaaa").unwrap();
    input.flush().unwrap();
    let mut line = String::new();
    output.read_line(&mut line).unwrap();
    assert!(line.starts_with("aaaa"), "{line}");
    writer.execute_batch("COMMIT").unwrap(); // no busy timeout: must not block
    let out = map_file_cmd(&map, &["cccc"], b"");
    assert_eq!(out.status.code(), Some(0), "a new reader sees the commit");
    drop(input);
    reader.wait().unwrap();
}

// ------------------------------------------------------------------ translate-text

fn translate(map_args: &[&std::ffi::OsStr], extra: &[&str], text: &[u8]) -> Output {
    let mut child = rehash_command()
        .arg("translate-text")
        .args(map_args)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = text.to_vec();
    let feeder = std::thread::spawn(move || input.write_all(&data));
    let out = child.wait_with_output().unwrap();
    // A query given on the command line never reads stdin: the child may
    // exit before the feeder writes, which then sees a closed pipe.
    match feeder.join().unwrap() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.unwrap(),
    }
    out
}

#[test]
fn translate_text_rewrites_commits_and_tags_only() {
    let c = converted();
    let repo = default_repo();
    let head = repo.rev("HEAD");
    let tag = repo.rev("refs/tags/v0.1-dual");
    let (head256, _) = &c.oracle[&head];
    let (tag256, _) = &c.oracle[&tag];
    let blob = one_of_each_type()[2].0.clone();
    let mut text = format!(
        "Fixed in {head} (was {short}).\nTag: {tag}\r\nBlob {blob} stays. Unknown deadbeefdeadbeef. «{short}»\n",
        short = &head[..9]
    )
    .into_bytes();
    text.push(0xc3); // a lone non-UTF-8 byte is copied too
    let dest = c.dest.as_os_str();
    let out = translate(&[std::ffi::OsStr::new("--repo"), dest], &[], &text);
    assert_eq!(out.status.code(), Some(0));
    let mut expected = format!(
        "Fixed in {head256} (was {short}).\nTag: {tag256}\r\nBlob {blob} stays. Unknown deadbeefdeadbeef. «{short}»\n",
        short = &head256[..9]
    )
    .into_bytes();
    expected.push(0xc3);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&expected)
    );
    assert!(out.stdout == expected);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "translate-text: replaced 4 ids, left 2 unknown, left 0 ambiguous\n"
    );
    let out = translate(
        &[std::ffi::OsStr::new("--repo"), dest],
        &["--abbrev", "12"],
        &head.as_bytes()[..8],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), &head256[..12]);
}

#[test]
fn translate_text_ambiguous_and_split_across_reads() {
    let map = boundary_map();
    let map_args = [std::ffi::OsStr::new("--map"), map.as_os_str()];
    // 7654321 names a commit and a tag: ambiguous. 1234567 names one commit
    // and one blob: a commit for prose purposes.
    let out = translate(&map_args, &[], b"7654321 1234567 12345670\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "7654321 3333a00 3333a000\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "translate-text: replaced 2 ids, left 0 unknown, left 1 ambiguous\n"
    );
    // Names on every side of the 64 KiB read boundary.
    let full = pad("12345670", 40, '0');
    let full256 = pad("3333a", 64, '0');
    let mut text = Vec::new();
    let mut expected = Vec::new();
    let filler = "x".repeat(65_536 - 20);
    for shift in 0..45 {
        text.extend_from_slice(filler.as_bytes());
        expected.extend_from_slice(filler.as_bytes());
        text.extend_from_slice(" ".repeat(shift).as_bytes());
        expected.extend_from_slice(" ".repeat(shift).as_bytes());
        text.extend_from_slice(format!(" {full} ").as_bytes());
        expected.extend_from_slice(format!(" {full256} ").as_bytes());
    }
    let out = translate(&map_args, &["-q"], &text);
    assert!(
        out.stdout == expected,
        "ids split across reads are rewritten"
    );
}
