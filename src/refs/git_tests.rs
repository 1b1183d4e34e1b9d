//! Round trips through repositories built by the real git: snapshot a SHA-1
//! repository, write its refs translated into a fresh SHA-256 one with a
//! fake map, and check the result by parsing it back and by asking git.

use std::path::Path;

use sha2::Digest as _;

use super::*;
use crate::hash::{HashKind, ObjectId};
use crate::testing::git::git;

/// A plumbing-only "translation": SHA-256 of the SHA-1 hex.
fn fake_map(id: &ObjectId) -> Option<ObjectId> {
    let digest = sha2::Sha256::digest(id.to_hex().as_bytes());
    ObjectId::from_raw(HashKind::Sha256, digest.as_ref())
}

fn sha1(hex: &str) -> ObjectId {
    ObjectId::from_hex(HashKind::Sha1, hex.as_bytes()).expect("git prints sha1 hex")
}

fn mapped_hex(hex: &str) -> String {
    fake_map(&sha1(hex)).expect("fake map is total").to_hex()
}

fn commit(work: &Path, file: &str, message: &str) -> String {
    std::fs::write(work.join(file), message).expect("write work file");
    git(work, &["add", file]);
    git(work, &["commit", "-q", "-m", message]);
    git(work, &["rev-parse", "HEAD"])
}

struct Fixture {
    _dir: tempfile::TempDir,
    work: std::path::PathBuf,
    git_dir: std::path::PathBuf,
    dest: std::path::PathBuf,
    c1: String,
    c2: String,
    c3: String,
    amended_away: String,
}

/// Branches, annotated (and nested) tags, a lightweight tag, a replace ref,
/// notes, a remote symref, everything packed, then more refs loose
/// (including one that shadows a packed ref), plus ORIG_HEAD and reflogs.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).expect("mkdir");
    git(&work, &["init", "-q", "-b", "main", "--object-format=sha1"]);
    let c1 = commit(&work, "a", "one");
    let c2 = commit(&work, "a", "two");
    git(&work, &["checkout", "-q", "-b", "dev"]);
    let c3 = commit(&work, "b", "three");
    git(&work, &["checkout", "-q", "main"]);
    git(&work, &["tag", "-a", "v1", "-m", "tag v1"]);
    git(
        &work,
        &["tag", "-a", "v1-nested", "-m", "tag of a tag", "v1"],
    );
    git(&work, &["tag", "light", &c1]);
    // two replace refs, so renaming them can reorder packed-refs; one logged,
    // so its reflog path is renamed too
    git(
        &work,
        &["-c", "core.logAllRefUpdates=always", "replace", &c1, &c2],
    );
    git(&work, &["replace", &c3, &c1]);
    git(&work, &["notes", "add", "-m", "a note", &c2]);
    git(&work, &["update-ref", "refs/remotes/origin/main", &c2]);
    git(
        &work,
        &[
            "symbolic-ref",
            "refs/remotes/origin/HEAD",
            "refs/remotes/origin/main",
        ],
    );
    git(&work, &["pack-refs", "--all"]);
    // after packing: a loose main shadows the packed one, a loose-only branch
    let amended_away = commit(&work, "a", "four");
    git(&work, &["commit", "-q", "--amend", "-m", "four, amended"]);
    git(&work, &["branch", "after-pack"]);
    git(&work, &["reset", "-q", "--soft", "HEAD~1"]);
    git(&work, &["reset", "-q", "--soft", "ORIG_HEAD"]);
    git(&work, &["fetch", "-q", ".", "dev", "main"]);
    let dest = dir.path().join("dest.git");
    git(
        dir.path(),
        &["init", "-q", "--bare", "--object-format=sha256", "dest.git"],
    );
    Fixture {
        git_dir: work.join(".git"),
        work,
        dest,
        c1,
        c2,
        c3,
        amended_away,
        _dir: dir,
    }
}

/// The translated refs of `src` written into `dest` as files.
fn write_files(
    src: &SourceRefs,
    dest: &Path,
    map: TranslateId<'_>,
) -> Result<RefsOutcome, RefsError> {
    write_translated_refs(
        src,
        dest,
        HashKind::Sha256,
        map,
        &|_| Peeled::Unknown,
        RefStorage::Files,
    )
}

fn mapped_name(name: &str) -> String {
    match name.strip_prefix("refs/replace/") {
        Some(hex) => format!("refs/replace/{}", mapped_hex(hex)),
        None => name.to_string(),
    }
}

fn map_target(target: &RefTarget) -> RefTarget {
    match target {
        RefTarget::Direct(id) => RefTarget::Direct(fake_map(id).expect("total")),
        RefTarget::Symbolic(name) => RefTarget::Symbolic(name.clone()),
    }
}

#[test]
fn snapshot_sees_every_kind_of_ref() {
    let fx = fixture();
    let src = read_source_refs(&fx.git_dir, HashKind::Sha1).expect("snapshot");
    assert_eq!(src.head, RefTarget::Symbolic("refs/heads/main".into()));

    let packed = src.packed.as_ref().expect("pack-refs wrote packed-refs");
    assert!(packed.is_sorted());
    assert!(
        packed
            .header
            .as_deref()
            .is_some_and(|h| h.starts_with(b"# pack-refs with:"))
    );
    let packed_names: Vec<&str> = packed.entries.iter().map(|e| e.name.as_str()).collect();
    let replace_name = format!("refs/replace/{}", fx.c1);
    for name in [
        "refs/heads/dev",
        "refs/heads/main",
        "refs/notes/commits",
        "refs/tags/light",
        "refs/tags/v1",
        "refs/tags/v1-nested",
        replace_name.as_str(),
    ] {
        assert!(
            packed_names.contains(&name),
            "{name} not packed: {packed_names:?}"
        );
    }
    let peeled = |name: &str| {
        packed
            .entries
            .iter()
            .find(|e| e.name == name)
            .and_then(|e| e.peeled)
    };
    assert_eq!(peeled("refs/tags/v1"), Some(sha1(&fx.c2)));
    assert_eq!(peeled("refs/tags/v1-nested"), Some(sha1(&fx.c2)));
    assert_eq!(peeled("refs/tags/light"), None);

    let loose_names: Vec<&str> = src.loose.iter().map(|r| r.name.as_str()).collect();
    // pack-refs leaves symbolic refs loose
    assert_eq!(
        loose_names,
        [
            "refs/heads/after-pack",
            "refs/heads/main",
            "refs/remotes/origin/HEAD"
        ]
    );
    assert_eq!(
        src.loose[2].target,
        RefTarget::Symbolic("refs/remotes/origin/main".into())
    );

    // the loose main hides the packed one
    let effective = src.effective_refs();
    let main_tip = git(&fx.work, &["rev-parse", "refs/heads/main"]);
    let main = effective
        .iter()
        .find(|(n, _)| n == "refs/heads/main")
        .expect("main");
    assert_eq!(main.1, RefTarget::Direct(sha1(&main_tip)));
    assert_eq!(
        effective
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>(),
        git(&fx.work, &["for-each-ref", "--format=%(refname)"])
            .lines()
            .collect::<Vec<_>>()
    );

    let pseudo_names: Vec<&str> = src.pseudo.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(pseudo_names, ["ORIG_HEAD", "FETCH_HEAD"]);
    assert_eq!(src.pseudo[1].ids().count(), 2);
    let log_names: Vec<&str> = src.reflogs.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(log_names.first(), Some(&"HEAD"));
    assert!(log_names.contains(&"refs/heads/dev"));
    // the amended-away commit survives only in reflogs (and ORIG_HEAD)
    assert!(src.all_ids().any(|id| id == sha1(&fx.amended_away)));
    assert!(src.all_ids().all(|id| !id.is_null()));
    assert_eq!(in_progress_operation(&fx.git_dir), None);
}

#[test]
fn translated_refs_parse_back_with_every_id_mapped_and_names_kept() {
    let fx = fixture();
    let src = read_source_refs(&fx.git_dir, HashKind::Sha1).expect("snapshot");
    let outcome = write_files(&src, &fx.dest, &fake_map).expect("write");
    assert_eq!(outcome.head, b"ref: refs/heads/main\n");
    assert_eq!(outcome.reflog_entries_dropped, 0);
    assert!(outcome.pseudo_refs_dropped.is_empty());
    let packed_len = src.packed.as_ref().map_or(0, |p| p.entries.len());
    assert_eq!(outcome.refs_written, src.loose.len() + packed_len);
    std::fs::write(fx.dest.join("HEAD"), &outcome.head).expect("write HEAD");

    let back = read_source_refs(&fx.dest, HashKind::Sha256).expect("parse back");
    assert_eq!(back.head, src.head);
    let expect_loose: Vec<LooseRef> = src
        .loose
        .iter()
        .map(|r| LooseRef {
            name: mapped_name(&r.name),
            target: map_target(&r.target),
        })
        .collect();
    assert_eq!(back.loose, expect_loose);

    let (src_packed, back_packed) = (
        src.packed.as_ref().expect("src"),
        back.packed.as_ref().expect("dest"),
    );
    assert_eq!(back_packed.header, src_packed.header);
    let mut expect_packed: Vec<PackedRef> = src_packed
        .entries
        .iter()
        .map(|e| PackedRef {
            name: mapped_name(&e.name),
            id: fake_map(&e.id).expect("total"),
            peeled: e.peeled.map(|p| fake_map(&p).expect("total")),
        })
        .collect();
    expect_packed.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(back_packed.entries, expect_packed);

    assert_eq!(back.reflogs.len(), src.reflogs.len());
    for (s, b) in src.reflogs.iter().zip(&back.reflogs) {
        assert_eq!(b.name, mapped_name(&s.name));
        assert_eq!(b.entries.len(), s.entries.len());
        for (se, be) in s.entries.iter().zip(&b.entries) {
            let map_or_null = |id: &ObjectId| {
                if id.is_null() {
                    HashKind::Sha256.null_id()
                } else {
                    fake_map(id).expect("total")
                }
            };
            assert_eq!(
                (be.old, be.new),
                (map_or_null(&se.old), map_or_null(&se.new))
            );
            assert_eq!(be.tail, se.tail);
        }
    }
    assert_eq!(back.pseudo.len(), src.pseudo.len());
    for (s, b) in src.pseudo.iter().zip(&back.pseudo) {
        assert_eq!(b.name, s.name);
        let (PseudoContent::Lines(s_lines), PseudoContent::Lines(b_lines)) =
            (&s.content, &b.content)
        else {
            panic!("{} is not a list of ids", s.name);
        };
        let mapped: Vec<IdLine> = s_lines
            .iter()
            .map(|l| IdLine {
                id: fake_map(&l.id).expect("total"),
                tail: l.tail.clone(),
            })
            .collect();
        assert_eq!(b_lines, &mapped);
    }
    let mut back_ids: Vec<ObjectId> = back.all_ids().collect();
    let mut want_ids: Vec<ObjectId> = src
        .all_ids()
        .map(|id| fake_map(&id).expect("total"))
        .collect();
    back_ids.sort();
    want_ids.sort();
    assert_eq!(back_ids, want_ids);

    // git itself resolves the SHA-256 refs (loose, packed, replace) and finds them well-formed
    for name in [
        "refs/heads/main",
        "refs/heads/dev",
        "refs/tags/v1",
        "HEAD",
        "refs/remotes/origin/HEAD",
    ] {
        let src_hex = git(&fx.work, &["rev-parse", name]);
        assert_eq!(
            git(&fx.dest, &["rev-parse", name]),
            mapped_hex(&src_hex),
            "{name}"
        );
    }
    // git binary-searches a `sorted` packed-refs, so this also checks the order
    for (replaced, replacement) in [(&fx.c1, &fx.c2), (&fx.c3, &fx.c1)] {
        let name = format!("refs/replace/{}", mapped_hex(replaced));
        assert_eq!(
            git(&fx.dest, &["rev-parse", &name]),
            mapped_hex(replacement)
        );
    }
    let replace_log = format!("logs/refs/replace/{}", mapped_hex(&fx.c1));
    assert!(fx.dest.join(replace_log).is_file());
    assert!(fx.dest.join("logs/HEAD").is_file());
    git(&fx.dest, &["refs", "verify", "--strict"]);
}

#[test]
fn unmapped_reflog_entries_and_pseudo_refs_are_dropped_and_counted() {
    let fx = fixture();
    let src = read_source_refs(&fx.git_dir, HashKind::Sha1).expect("snapshot");
    let gone = sha1(&fx.amended_away);
    let in_reflogs = src
        .reflogs
        .iter()
        .flat_map(|l| &l.entries)
        .filter(|e| e.old == gone || e.new == gone)
        .count();
    assert!(in_reflogs > 0);
    let map = |id: &ObjectId| if *id == gone { None } else { fake_map(id) };
    let outcome = write_files(&src, &fx.dest, &map).expect("write");
    assert_eq!(outcome.reflog_entries_dropped, in_reflogs);
    let total: usize = src.reflogs.iter().map(|l| l.entries.len()).sum();
    assert_eq!(outcome.reflog_entries_written, total - in_reflogs);
    let orig_head_gone = src
        .pseudo
        .iter()
        .any(|p| p.name == "ORIG_HEAD" && p.ids().any(|id| id == gone));
    assert_eq!(
        outcome
            .pseudo_refs_dropped
            .contains(&"ORIG_HEAD".to_string()),
        orig_head_gone
    );
    assert_eq!(fx.dest.join("ORIG_HEAD").exists(), !orig_head_gone);
}

#[test]
fn unmapped_ref_is_an_error_and_nothing_is_written() {
    let fx = fixture();
    let src = read_source_refs(&fx.git_dir, HashKind::Sha1).expect("snapshot");
    let dev = sha1(&git(&fx.work, &["rev-parse", "refs/heads/dev"]));
    let map = |id: &ObjectId| if *id == dev { None } else { fake_map(id) };
    match write_files(&src, &fx.dest, &map) {
        Err(RefsError::Unmapped { refname, id }) => {
            assert_eq!((refname.as_str(), id), ("refs/heads/dev", dev));
        }
        other => panic!("{other:?}"),
    }
    assert!(!fx.dest.join("packed-refs").exists());
    assert!(!fx.dest.join("logs").exists());
}

#[test]
fn map_answering_the_wrong_kind_is_an_error() {
    let fx = fixture();
    let src = read_source_refs(&fx.git_dir, HashKind::Sha1).expect("snapshot");
    let map = |id: &ObjectId| Some(*id);
    assert!(matches!(
        write_files(&src, &fx.dest, &map),
        Err(RefsError::WrongKind { .. })
    ));
}

#[test]
fn detached_head_is_translated_but_not_written() {
    let fx = fixture();
    git(&fx.work, &["checkout", "-q", "--detach", &fx.c2]);
    let src = read_source_refs(&fx.git_dir, HashKind::Sha1).expect("snapshot");
    assert_eq!(src.head, RefTarget::Direct(sha1(&fx.c2)));
    let head_before = std::fs::read(fx.dest.join("HEAD")).expect("init wrote HEAD");
    let outcome = write_files(&src, &fx.dest, &fake_map).expect("write");
    assert_eq!(
        outcome.head,
        format!("{}\n", mapped_hex(&fx.c2)).into_bytes()
    );
    assert_eq!(
        std::fs::read(fx.dest.join("HEAD")).expect("HEAD"),
        head_before
    );
}

#[test]
fn in_progress_merge_is_detected() {
    let fx = fixture();
    git(
        &fx.work,
        &[
            "--no-replace-objects",
            "merge",
            "-q",
            "--no-commit",
            "--no-ff",
            "dev",
        ],
    );
    assert_eq!(
        in_progress_operation(&fx.git_dir),
        Some("a merge (MERGE_HEAD)")
    );
    let src = read_source_refs(&fx.git_dir, HashKind::Sha1).expect("snapshot");
    assert!(src.pseudo.iter().any(|p| p.name == "MERGE_HEAD"));
}

#[test]
fn lock_files_are_ignored() {
    let fx = fixture();
    std::fs::write(fx.git_dir.join("refs/heads/wip.lock"), "garbage").expect("write lock");
    let src = read_source_refs(&fx.git_dir, HashKind::Sha1).expect("snapshot");
    assert!(src.loose.iter().all(|r| !r.name.ends_with(".lock")));
}

#[test]
fn malformed_loose_ref_names_its_file() {
    let fx = fixture();
    let bad = fx.git_dir.join("refs/heads/broken");
    std::fs::write(&bad, "not an id\n").expect("write");
    match read_source_refs(&fx.git_dir, HashKind::Sha1) {
        Err(RefsError::Malformed { path, line, .. }) => assert_eq!((path, line), (bad, 1)),
        other => panic!("{other:?}"),
    }
}

/// What git says `id` of the fixture's work tree peels to.
fn git_peel(work: &Path, id: &ObjectId) -> Peeled {
    let hex = id.to_hex();
    if git(work, &["cat-file", "-t", &hex]) != "tag" {
        return Peeled::NotATag;
    }
    Peeled::To(sha1(&git(work, &["rev-parse", &format!("{hex}^{{}}")])))
}

#[test]
fn loose_refs_git_would_pack_join_packed_refs_with_their_peeled_objects() {
    let fx = fixture();
    // Loose annotated tags (one of a tag) and a per-worktree ref, beside
    // the fixture's loose branches and symbolic ref.
    git(&fx.work, &["tag", "-a", "v2", "-m", "tag v2", &fx.c3]);
    git(
        &fx.work,
        &["tag", "-a", "v2-nested", "-m", "tag of v2", "v2"],
    );
    git(&fx.work, &["update-ref", "refs/bisect/bad", &fx.c2]);
    let src = read_source_refs(&fx.git_dir, HashKind::Sha1).expect("snapshot");
    let peel = |id: &ObjectId| git_peel(&fx.work, id);
    let outcome = write_translated_refs(
        &src,
        &fx.dest,
        HashKind::Sha256,
        &fake_map,
        &peel,
        RefStorage::Files,
    )
    .expect("write");
    std::fs::write(fx.dest.join("HEAD"), &outcome.head).expect("write HEAD");

    let back = read_source_refs(&fx.dest, HashKind::Sha256).expect("parse back");
    let loose: Vec<&str> = back.loose.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(loose, ["refs/bisect/bad", "refs/remotes/origin/HEAD"]);
    let packed = back.packed.as_ref().expect("packed-refs");
    assert_eq!(packed.header, src.packed.as_ref().expect("src").header);
    assert!(packed.entries.is_sorted_by(|a, b| a.name < b.name));

    // Every ref names what it named, translated; every annotated tag,
    // packed before or not, carries the object it finally names.
    let mut expected: Vec<EffectiveRef> = src
        .effective_refs()
        .into_iter()
        .map(|(name, target)| {
            let peeled = match (&target, name.starts_with("refs/bisect/")) {
                (RefTarget::Direct(id), false) => match git_peel(&fx.work, id) {
                    Peeled::To(object) => fake_map(&object),
                    _ => None,
                },
                _ => None,
            };
            (mapped_name(&name), map_target(&target), peeled)
        })
        .collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(back.effective_refs_peeled(), expected);
    assert_eq!(
        outcome.refs_written,
        back.loose.len() + packed.entries.len()
    );

    for name in ["refs/heads/main", "refs/tags/v2", "refs/bisect/bad", "HEAD"] {
        let src_hex = git(&fx.work, &["rev-parse", name]);
        assert_eq!(
            git(&fx.dest, &["rev-parse", name]),
            mapped_hex(&src_hex),
            "{name}"
        );
    }
    git(&fx.dest, &["refs", "verify", "--strict"]);
}

#[test]
fn a_reftable_dest_keeps_the_peeled_object_of_loose_tags() {
    let fx = fixture();
    git(&fx.work, &["tag", "-a", "v2", "-m", "tag v2", &fx.c3]);
    let src = read_source_refs(&fx.git_dir, HashKind::Sha1).expect("snapshot");
    let table_dest = fx.dest.with_file_name("table.git");
    git(
        table_dest.parent().expect("a parent"),
        &[
            "init",
            "-q",
            "--bare",
            "--object-format=sha256",
            "--ref-format=reftable",
            "table.git",
        ],
    );
    let peel = |id: &ObjectId| git_peel(&fx.work, id);
    write_translated_refs(
        &src,
        &table_dest,
        HashKind::Sha256,
        &fake_map,
        &peel,
        RefStorage::Reftable,
    )
    .expect("write");
    let back = read_source_refs(&table_dest, HashKind::Sha256).expect("parse back");
    let v2 = back
        .effective_refs_peeled()
        .into_iter()
        .find(|(name, _, _)| name == "refs/tags/v2")
        .expect("v2");
    assert_eq!(v2.2, fake_map(&sha1(&fx.c3)));
    git(&table_dest, &["refs", "verify", "--strict"]);
}
