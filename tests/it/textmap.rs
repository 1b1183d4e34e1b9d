//! `git-rehash translate-text`: SHA-1 commit and tag ids quoted in text
//! (issues, wikis, release notes) rewritten to their SHA-256 names, full or
//! abbreviated, other bytes copied as they are.

use std::ffi::OsStr;
use std::process::Output;

use crate::support::converted::default_conversion;
use crate::support::fixture::{FixtureOptions, default_repo};
use crate::support::oracle::{one_of_each_type, tricky_oracle};
use crate::support::process::output_with_unread_stdin;
use crate::support::rehash::rehash_command;
use crate::support::synthetic_map::{boundary_map, pad};

/// `git-rehash translate-text MAP_ARGS EXTRA` with `text` on stdin.
fn translate(map_args: &[&OsStr], extra: &[&str], text: &[u8]) -> Output {
    output_with_unread_stdin(
        rehash_command()
            .arg("translate-text")
            .args(map_args)
            .args(extra),
        text,
    )
}

#[test]
fn translate_text_rewrites_commits_and_tags_only() {
    let c = default_conversion();
    let repo = default_repo();
    let head = repo.rev("HEAD");
    let tag = repo.rev("refs/tags/v0.1-dual");
    let oracle = tricky_oracle(FixtureOptions::default());
    let (head256, _) = &oracle[&head];
    let (tag256, _) = &oracle[&tag];
    let blob = one_of_each_type()[2].0.clone();
    let mut text = format!(
        "Fixed in {head} (was {short}).\nTag: {tag}\r\nBlob {blob} stays. Unknown deadbeefdeadbeef. «{short}»\n",
        short = &head[..9]
    )
    .into_bytes();
    text.push(0xc3); // a lone non-UTF-8 byte is copied too
    let dest = c.dest.as_os_str();
    let out = translate(&[OsStr::new("--repo"), dest], &[], &text);
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
        &[OsStr::new("--repo"), dest],
        &["--abbrev", "12"],
        &head.as_bytes()[..8],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), &head256[..12]);
}

#[test]
fn translate_text_ambiguous_and_split_across_reads() {
    let map = boundary_map();
    let map_args = [OsStr::new("--map"), map.as_os_str()];
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
