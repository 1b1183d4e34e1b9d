//! `--batch`: one id per line on stdin, answered line by line (so it can
//! be driven as a co-process), the same answers as single lookups.

use super::{BatchCoprocess, map_file};
use crate::support::process::stdout_text;
use crate::support::synthetic_map::{boundary_map, pad};

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
        single += &stdout_text(&map_file(map, &[q], b""));
    }
    let out = map_file(map, &["--batch"], (queries.join("\n") + "\n").as_bytes());
    assert_eq!(stdout_text(&out), single);
}

#[test]
fn batch_answers_every_line_in_order() {
    let map = boundary_map();
    let a = pad("abcde", 40, '0');
    let s = pad("1111", 64, '0');
    let input = format!("abcde\r\n  ABCD  \n\nnot-hex\n{s}\n");
    let out = map_file(map, &["--batch"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout_text(&out),
        format!("{a} {s} commit\nABCD ambiguous\n missing\nnot-hex missing\n{a} {s} commit\n")
    );
    let all_found = map_file(map, &["--batch"], format!("abcde\n{s}\n").as_bytes());
    assert_eq!(all_found.status.code(), Some(0));
}

#[test]
fn batch_converses_with_a_co_process() {
    // Each answer must arrive before the next question is written; if the
    // command buffered its output this test would wait forever.
    let map = boundary_map();
    let mut batch = BatchCoprocess::start(map, &["--format", "json"]);
    for (q, status) in [
        ("abcde", "found"),
        ("abcd", "ambiguous"),
        ("0000", "missing"),
    ] {
        let line = batch.ask(q);
        assert!(
            line.starts_with(&format!("{{\"input\":\"{q}\",\"status\":\"{status}\"")),
            "{line}"
        );
    }
    assert_eq!(batch.finish().code(), Some(1));
}

#[test]
fn batch_streams_long_input() {
    let map = boundary_map();
    let mut input = Vec::new();
    for _ in 0..50_000 {
        input.extend_from_slice(b"abcde\nabcd\n");
    }
    let out = map_file(map, &["--batch"], &input);
    let text = stdout_text(&out);
    assert_eq!(text.lines().count(), 100_000);
    assert!(
        text.lines()
            .enumerate()
            .all(|(i, l)| (i % 2 == 0) == l.starts_with("abcde0"))
    );
}
