//! The map is SQLite in WAL mode: readers see the last committed state
//! without waiting for a writer, and a writer commits while a batch reader
//! holds its snapshot.

use super::{BatchCoprocess, map_file};
use crate::support::library::{HashKind, ObjectKind};
use crate::support::process::stdout_text;
use crate::support::synthetic_map::{id, pad, synthetic_map};

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
    let out = map_file(&map, &["aaaa", "cccc"], b"");
    assert_eq!(
        stdout_text(&out),
        format!(
            "{} {} blob\ncccc missing\n",
            pad("aaaa", 40, '0'),
            pad("bbbb", 64, '0')
        )
    );
    // A batch reader holding its snapshot open while the writer commits.
    let mut reader = BatchCoprocess::start(&map, &[]);
    let line = reader.ask("aaaa");
    assert!(line.starts_with("aaaa"), "{line}");
    writer.execute_batch("COMMIT").unwrap(); // no busy timeout: must not block
    let out = map_file(&map, &["cccc"], b"");
    assert_eq!(out.status.code(), Some(0), "a new reader sees the commit");
    reader.finish();
}
