//! The reftable reader and writer against git itself: the same history
//! made twice, once in each backend, must read back as the same snapshot
//! (so every reflog line rebuilt from a log record is byte for byte the
//! line the files backend wrote); tables this module writes must be read
//! by git as the refs they hold, from small tables to ones with several
//! blocks and index levels; damaged tables are refused by name.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::records::{LogRecord, LogUpdate, RefRecord, RefValue};
use super::table_read::parse_table;
use super::table_write::{TableInput, write_table};
use super::*;
use crate::refs::{RefStorage, RefTarget, in_progress_in_table, read_source_refs};
use crate::testing::git::{git, git_command, run};

/// git with `input` on its standard input.
fn git_stdin(dir: &Path, args: &[&str], input: &str) {
    let mut child = git_command(dir)
        .args(args)
        .stdin(Stdio::piped())
        .spawn()
        .expect("git runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input.as_bytes())
        .expect("write stdin");
    assert!(child.wait().expect("git ends").success(), "git {args:?}");
}

/// git that leaves every transaction in a table of its own (no automatic
/// compaction), so newer tables shadow older ones.
fn git_stacking(dir: &Path, args: &[&str]) -> String {
    run(git_command(dir)
        .args(args)
        .env("GIT_TEST_REFTABLE_AUTOCOMPACTION", "false"))
}

/// A reftable work tree `name` in `root` with one commit on `main`.
fn reftable_repo(root: &Path, name: &str) -> PathBuf {
    let work = root.join(name);
    std::fs::create_dir(&work).expect("mkdir");
    git(
        &work,
        &["init", "-q", "-b", "main", "--ref-format=reftable"],
    );
    git(&work, &["commit", "-q", "--allow-empty", "-m", "one"]);
    work
}

/// One history, in the backend `format`: branches, annotated and nested
/// tags, a symbolic ref, a detached-then-reattached HEAD, a deleted branch
/// (a tombstone in a later table), a dropped reflog entry (a log
/// deletion), ORIG_HEAD, reflog messages with and without text and in
/// another zone. Returns the work tree.
fn history(root: &Path, format: &str) -> PathBuf {
    let work = root.join(format);
    std::fs::create_dir(&work).expect("mkdir");
    let format_arg = format!("--ref-format={format}");
    git(&work, &["init", "-q", "-b", "main", &format_arg]);
    let commit = |file: &str, text: &str| {
        std::fs::write(work.join(file), text).expect("write");
        git_stacking(&work, &["add", file]);
        git_stacking(&work, &["commit", "-q", "-m", text]);
    };
    commit("a", "one");
    commit("a", "two");
    git_stacking(&work, &["checkout", "-q", "-b", "dev"]);
    commit("b", "three");
    git_stacking(&work, &["checkout", "-q", "main"]);
    git_stacking(&work, &["tag", "-a", "v1", "-m", "tag v1"]);
    git_stacking(&work, &["tag", "-a", "v1-nested", "-m", "nested", "v1"]);
    git_stacking(&work, &["tag", "light", "HEAD~1"]);
    git_stacking(&work, &["branch", "gone"]);
    git_stacking(
        &work,
        &["symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/dev"],
    );
    git_stacking(&work, &["update-ref", "refs/heads/nomsg", "HEAD"]);
    // Another committer, in another zone.
    run(git_command(&work)
        .args([
            "update-ref",
            "-m",
            "moved by hand",
            "refs/heads/nomsg",
            "HEAD~1",
        ])
        .env("GIT_TEST_REFTABLE_AUTOCOMPACTION", "false")
        .env("GIT_COMMITTER_NAME", "Z One")
        .env("GIT_COMMITTER_DATE", "1700000100 -0130"));
    git_stacking(&work, &["pack-refs", "--all"]);
    git_stacking(&work, &["branch", "-D", "gone"]);
    git_stacking(&work, &["checkout", "-q", "--detach", "HEAD~1"]);
    git_stacking(&work, &["checkout", "-q", "main"]);
    git_stacking(&work, &["reset", "-q", "--hard", "HEAD~1"]);
    git_stacking(&work, &["reflog", "delete", "HEAD@{2}"]);
    work
}

#[test]
fn a_reftable_repository_reads_as_its_files_twin() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = history(dir.path(), "files");
    let reftable = history(dir.path(), "reftable");
    let tables = std::fs::read_to_string(reftable.join(".git/reftable/tables.list")).unwrap();
    assert!(tables.lines().count() >= 4, "one table a transaction");

    let a = read_source_refs(&files.join(".git"), HashKind::Sha1).expect("files");
    let b = read_source_refs(&reftable.join(".git"), HashKind::Sha1).expect("reftable");
    assert_eq!(b.storage, RefStorage::Reftable);
    assert_eq!(a.head, b.head);
    assert_eq!(a.effective_refs_peeled(), b.effective_refs_peeled());
    assert_eq!(a.pseudo, b.pseudo);
    assert_eq!(a.reflogs, b.reflogs);
    let names: Vec<_> = b.reflogs.iter().map(|l| l.name.as_str()).collect();
    assert!(names.contains(&"refs/heads/nomsg") && !names.contains(&"refs/heads/gone"));
    // git agrees on the refs themselves.
    let listed = git(
        &reftable,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname) %(*objectname)",
        ],
    );
    let ours: Vec<String> = b
        .effective_refs_peeled()
        .into_iter()
        .map(|(name, target, peeled)| {
            let value = match target {
                RefTarget::Direct(id) => id.to_hex(),
                RefTarget::Symbolic(to) => git(&reftable, &["rev-parse", &to]),
            };
            let peeled = peeled.map(|p| p.to_hex()).unwrap_or_default();
            format!("{name} {value} {peeled}")
        })
        .collect();
    assert_eq!(listed.lines().collect::<Vec<_>>(), ours);
}

#[test]
fn git_reads_the_table_written_from_a_files_snapshot() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = history(dir.path(), "files");
    let reftable = history(dir.path(), "reftable");
    let snapshot = read_source_refs(&files.join(".git"), HashKind::Sha1).expect("files");
    // The reftable twin has the same objects: replace its stack by ours.
    let git_dir = reftable.join(".git");
    let written = write_stack(&git_dir, &snapshot).expect("write");
    assert!(written.files.is_empty());
    assert_eq!(
        std::fs::read_to_string(git_dir.join("reftable/tables.list")).unwrap(),
        format!("{}\n", written.table.file_name().unwrap().to_str().unwrap())
    );
    for args in [
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname) %(*objectname) %(symref)",
        ][..],
        &["symbolic-ref", "HEAD"],
        &["rev-parse", "ORIG_HEAD"],
        &["reflog", "show", "--format=%H %gD %gs %gn %ge %gd", "HEAD"],
        &["reflog", "show", "--format=%H %gs %gn", "refs/heads/nomsg"],
        &["reflog", "show", "--format=%H %gs", "refs/heads/dev"],
        &["reflog", "list"],
    ] {
        assert_eq!(git(&reftable, args), git(&files, args), "git {args:?}");
    }
    git(&reftable, &["fsck", "--strict", "--no-progress"]);
    // And git keeps writing to it: a later transaction is newer.
    git(&reftable, &["commit", "-q", "--allow-empty", "-m", "after"]);
    assert_eq!(
        git(&reftable, &["reflog", "show", "-1", "--format=%gs", "main"]),
        "commit: after"
    );
}

#[test]
fn big_tables_have_indexes_both_ways() {
    let dir = tempfile::tempdir().expect("tempdir");
    let work = reftable_repo(dir.path(), "big");
    let first = git(&work, &["rev-parse", "HEAD"]);
    git(&work, &["commit", "-q", "--allow-empty", "-m", "two"]);
    let head = git(&work, &["rev-parse", "HEAD"]);
    let mut input = String::new();
    for i in 0..3000 {
        input.push_str(&format!("create refs/heads/topic/{i:05} {head}\n"));
    }
    git_stdin(&work, &["update-ref", "--stdin"], &input);
    for i in 0..400 {
        let message = format!("move {i}");
        let to = if i % 2 == 0 { &first } else { &head };
        git(
            &work,
            &["update-ref", "-m", &message, "refs/heads/main", to],
        );
    }
    git(&work, &["pack-refs", "--all"]);
    let git_dir = work.join(".git");
    let list = std::fs::read_to_string(git_dir.join("reftable/tables.list")).unwrap();
    let table = std::fs::read(git_dir.join("reftable").join(list.trim())).unwrap();
    let footer = layout::Footer::parse(&table).unwrap();
    assert!(footer.ref_index_position > 0 && footer.obj_position > 0);
    assert!(footer.log_index_position > 0);

    // git's table, read by us.
    let read = read_source_refs(&git_dir, HashKind::Sha1).expect("read");
    assert_eq!(read.effective_refs().len(), 3001);
    let main_log = read.reflogs.iter().find(|l| l.name == "refs/heads/main");
    assert_eq!(main_log.expect("main logged").entries.len(), 402);

    // Ours, read by git: lookups go through the index levels.
    write_stack(&git_dir, &read).expect("write");
    let ours = std::fs::read(
        git_dir.join("reftable").join(
            std::fs::read_to_string(git_dir.join("reftable/tables.list"))
                .unwrap()
                .trim(),
        ),
    )
    .unwrap();
    let footer = layout::Footer::parse(&ours).unwrap();
    assert!(footer.ref_index_position > 0 && footer.log_index_position > 0);
    assert_eq!(
        git(&work, &["for-each-ref", "--format=%(refname)"])
            .lines()
            .count(),
        3001
    );
    for name in [
        "refs/heads/topic/00000",
        "refs/heads/topic/01777",
        "refs/heads/topic/02999",
    ] {
        assert_eq!(git(&work, &["rev-parse", name]), head);
    }
    assert_eq!(git(&work, &["rev-parse", "main"]), head);
    assert_eq!(
        git(&work, &["reflog", "show", "--format=%gs", "main@{401}"]),
        "commit (initial): one"
    );
    assert_eq!(
        git(&work, &["reflog", "show", "-1", "--format=%gs", "main@{7}"]),
        "move 392"
    );
}

#[test]
fn written_tables_read_back_whole() {
    let id = |n: u32| ObjectId::Sha256([n as u8; 32]);
    let refs: Vec<RefRecord> = (0..2000u32)
        .map(|n| RefRecord {
            name: format!("refs/tags/t{n:06}"),
            update_index: 9,
            value: if n % 3 == 0 {
                RefValue::Peeled {
                    value: id(n),
                    peeled: id(n + 1),
                }
            } else {
                RefValue::Direct(id(n))
            },
        })
        .collect();
    let mut logs: Vec<LogRecord> = (0..1500u64)
        .map(|n| LogRecord {
            refname: format!("refs/heads/b{}", n % 7),
            update_index: n / 7 + 1,
            update: Some(LogUpdate {
                old: id(n as u32),
                new: id(n as u32 + 1),
                name: b"C O Mitter".to_vec(),
                email: b"c@example.invalid".to_vec(),
                time: 1_700_000_000 + n,
                tz: -130,
                message: format!("step {n}\n").into_bytes(),
            }),
        })
        .collect();
    logs.sort_by_cached_key(LogRecord::key);
    let bytes = write_table(&TableInput {
        hash: HashKind::Sha256,
        min_update_index: 1,
        max_update_index: 9,
        refs: &refs,
        logs: &logs,
    })
    .expect("write");
    let back = parse_table(&bytes, HashKind::Sha256).expect("read");
    assert_eq!(back.refs, refs);
    assert_eq!(back.logs, logs);
    assert!(parse_table(&bytes, HashKind::Sha1).is_err());
}

#[test]
fn damaged_tables_are_refused_by_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let work = reftable_repo(dir.path(), "r");
    git(&work, &["branch", "b"]);
    let git_dir = work.join(".git");
    let list = std::fs::read_to_string(git_dir.join("reftable/tables.list")).unwrap();
    let table = git_dir.join("reftable").join(list.lines().last().unwrap());
    let good = std::fs::read(&table).unwrap();
    // The block type of the first ref block, a byte in a record, the footer.
    for at in [28usize, 40, good.len() - 20] {
        let mut bad = good.clone();
        bad[at] ^= 0x40;
        std::fs::write(&table, &bad).unwrap();
        match read_source_refs(&git_dir, HashKind::Sha1) {
            Err(RefsError::Reftable { path, reason }) => {
                assert_eq!(path, table, "{reason}");
            }
            Ok(_) if at == 40 => {} // a changed name letter is still a name
            other => panic!("byte {at}: {other:?}"),
        }
    }
    std::fs::write(&table, &good[..good.len() - 1]).unwrap();
    assert!(matches!(
        read_source_refs(&git_dir, HashKind::Sha1),
        Err(RefsError::Reftable { path, .. }) if path == table
    ));
    std::fs::remove_file(&table).unwrap();
    match read_source_refs(&git_dir, HashKind::Sha1) {
        Err(RefsError::Reftable { path, reason }) => {
            assert_eq!(path, table);
            assert!(reason.contains("missing"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_cherry_pick_in_progress_is_seen_in_the_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let work = reftable_repo(dir.path(), "r");
    let commit = |text: &str| {
        std::fs::write(work.join("f"), text).unwrap();
        git(&work, &["add", "f"]);
        git(&work, &["commit", "-q", "-m", text]);
    };
    commit("base\n");
    git(&work, &["checkout", "-q", "-b", "side"]);
    commit("side\n");
    git(&work, &["checkout", "-q", "main"]);
    commit("main\n");
    let conflict = git_command(&work)
        .args(["cherry-pick", "side"])
        .output()
        .expect("git runs");
    assert!(!conflict.status.success(), "the pick conflicts");
    assert!(
        !work.join(".git/CHERRY_PICK_HEAD").exists(),
        "a ref in the table"
    );
    let refs = read_source_refs(&work.join(".git"), HashKind::Sha1).expect("read");
    assert_eq!(
        in_progress_in_table(&refs),
        Some("a cherry-pick (CHERRY_PICK_HEAD)")
    );
}

#[test]
fn git_finds_refs_through_index_levels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let work = reftable_repo(dir.path(), "r");
    let head = git(&work, &["rev-parse", "HEAD"]);
    let id = ObjectId::from_hex(HashKind::Sha1, head.as_bytes()).unwrap();
    let git_dir = work.join(".git");
    let mut refs = read_source_refs(&git_dir, HashKind::Sha1).expect("read");
    // Long names, so that few fit a block: more than 3 blocks of index
    // records, which get an index of their own.
    let name = |n: u32| format!("refs/tags/many/{n:06}-{}", "x".repeat(200));
    let entries = (0..20_000)
        .map(|n| crate::refs::PackedRef {
            name: name(n),
            id,
            peeled: None,
        })
        .collect();
    refs.packed = Some(crate::refs::PackedRefs {
        header: None,
        entries,
    });
    let written = write_stack(&git_dir, &refs).expect("write");
    let table = std::fs::read(&written.table).unwrap();
    let footer = layout::Footer::parse(&table).unwrap();
    let top = footer.ref_index_position as usize;
    assert_eq!(table[top], b'i');
    // The top level's first record points at another index block.
    let block = block_read::read_block(&table, top, 0, footer.block_size, b'i')
        .unwrap()
        .unwrap();
    let mut cursor = block.cursor();
    cursor.next_key().unwrap().expect("a record");
    let child = cursor.input.varint().unwrap() as usize;
    assert_eq!(table[child], b'i', "two index levels");

    assert_eq!(
        git(
            &work,
            &["for-each-ref", "--format=%(refname)", "refs/tags/many"]
        )
        .lines()
        .count(),
        20_000
    );
    for n in [0, 1, 9_999, 15_678, 19_999] {
        assert_eq!(git(&work, &["rev-parse", &name(n)]), head);
    }
    let missing = git_command(&work)
        .args(["rev-parse", "--verify", "-q", &name(20_000)])
        .output()
        .unwrap();
    assert!(!missing.status.success());
}
