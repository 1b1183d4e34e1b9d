//! Self-tests of the test infrastructure: the fixture builder
//! (tests/fixtures/make-tricky-repo.sh) and the git-driven oracle
//! (tests/fixtures/oracle.sh), through the helpers in tests/common.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use common::*;

const GITLINK: FixtureOptions = FixtureOptions {
    gitlink: true,
    unknown_header: false,
};
const UNKNOWN: FixtureOptions = FixtureOptions {
    gitlink: false,
    unknown_header: true,
};

fn raw_object(repo: &TrickyRepo, rev: &str) -> Vec<u8> {
    let id = repo.rev(rev);
    let t = git(&repo.repo_path, &["cat-file", "-t", &id]);
    git_bytes(&repo.repo_path, &["cat-file", &t, &id])
}

fn header(body: &[u8]) -> String {
    let end = body
        .windows(2)
        .position(|w| w == b"\n\n")
        .unwrap_or(body.len());
    String::from_utf8_lossy(&body[..end]).into_owned()
}

/// Tree entries (mode, name, id) parsed from a raw tree body.
fn tree_entries(body: &[u8]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let sp = rest.iter().position(|&b| b == b' ').unwrap();
        let nul = rest.iter().position(|&b| b == 0).unwrap();
        let id: String = rest[nul + 1..nul + 21]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        out.push((
            String::from_utf8_lossy(&rest[..sp]).into_owned(),
            String::from_utf8_lossy(&rest[sp + 1..nul]).into_owned(),
            id,
        ));
        rest = &rest[nul + 21..];
    }
    out
}

#[test]
fn tools_are_available() {
    for (tool, arg) in [
        ("git", "--version"),
        ("gpg", "--version"),
        ("python3", "--version"),
    ] {
        let ok = std::process::Command::new(tool)
            .arg(arg)
            .output()
            .map(|o| o.status.success());
        assert!(
            matches!(ok, Ok(true)),
            "{tool} {arg} does not work (CI: install git, gnupg, python3)"
        );
    }
    let version = git(std::path::Path::new("."), &["--version"]);
    assert!(version.starts_with("git version 2."), "{version}");
}

#[test]
fn fixture_has_every_ref() {
    let repo = default_repo();
    let refs = repo.refs();
    let expected = [
        "refs/heads/main",
        "refs/heads/feature",
        "refs/heads/side",
        "refs/heads/side2",
        "refs/heads/oct-a",
        "refs/heads/oct-b",
        "refs/heads/oct-c",
        "refs/heads/odd",
        "refs/heads/unsorted",
        "refs/heads/nul-message",
        "refs/heads/empty-root",
        "refs/heads/loose-branch",
        "refs/heads/amended",
        "refs/tags/v0.1-dual",
        "refs/tags/root-annotated",
        "refs/tags/root-signed",
        "refs/tags/v1.0",
        "refs/tags/v1.0-outer",
        "refs/tags/v1.0-outermost",
        "refs/tags/light",
        "refs/tags/v2.0-signed",
        "refs/tags/side-signed",
        "refs/tags/side2-inner",
        "refs/tags/side2-outer",
        "refs/tags/blob-tag",
        "refs/tags/tree-tag",
        "refs/tags/sig-no-final-newline",
        "refs/tags/tag-msg-no-newline",
        "refs/tags/v3.0-loose",
        "refs/notes/commits",
    ];
    for name in expected {
        assert!(refs.contains_key(name), "missing {name}; refs: {refs:#?}");
    }
    assert!(!refs.contains_key("refs/heads/unknown-header"));
    // replace ref: its name is the replaced commit's id
    let replaced: Vec<_> = refs
        .keys()
        .filter_map(|r| r.strip_prefix("refs/replace/"))
        .collect();
    assert_eq!(replaced, [repo.rev("feature~1").as_str()]);
    assert_eq!(
        refs[&format!("refs/replace/{}", replaced[0])],
        repo.rev("feature")
    );
    // lightweight tag vs annotated tags
    assert_eq!(
        git(
            &repo.repo_path,
            &["cat-file", "-t", &refs["refs/tags/light"]]
        ),
        "commit"
    );
    assert_eq!(
        git(
            &repo.repo_path,
            &["cat-file", "-t", &refs["refs/tags/v1.0"]]
        ),
        "tag"
    );
    assert_eq!(
        git(&repo.repo_path, &["cat-file", "-t", "blob-tag^{}"]),
        "blob"
    );
    assert_eq!(
        git(&repo.repo_path, &["cat-file", "-t", "tree-tag^{}"]),
        "tree"
    );
    // packed and loose refs, reflogs
    let gd = repo.git_dir();
    let packed = fs::read_to_string(gd.join("packed-refs")).unwrap();
    assert!(packed.contains(" refs/heads/main\n") && packed.contains(" refs/tags/v1.0\n"));
    assert!(
        packed.lines().any(|l| l.starts_with('^')),
        "packed-refs has peeled lines"
    );
    assert!(gd.join("refs/heads/loose-branch").is_file());
    assert!(gd.join("refs/tags/v3.0-loose").is_file());
    assert!(gd.join("logs/HEAD").is_file() && gd.join("logs/refs/heads/main").is_file());
    assert!(gd.join("logs/refs/heads/nul-message").is_file());
}

#[test]
fn fixture_has_two_packs_with_ofs_and_ref_deltas_and_loose_objects() {
    let repo = default_repo();
    let packs = pack_files(&repo.git_dir());
    assert!(packs.len() >= 2, "packs: {packs:?}");
    let kinds: Vec<BTreeSet<u8>> = packs
        .iter()
        .map(|p| pack_entries(p, "sha1").iter().map(|e| e.kind).collect())
        .collect();
    assert!(
        kinds.iter().any(|k| k.contains(&OBJ_OFS_DELTA)),
        "no OFS_DELTA: {kinds:?}"
    );
    assert!(
        kinds.iter().any(|k| k.contains(&OBJ_REF_DELTA)),
        "no REF_DELTA: {kinds:?}"
    );
    let loose = loose_objects(&repo.git_dir());
    assert!(loose.len() >= 10, "loose objects: {loose:?}");
    // loose and packed do not overlap (prune-packed ran), together they are all
    let packed: BTreeSet<String> = packs
        .iter()
        .flat_map(|p| pack_entries(p, "sha1"))
        .map(|e| e.id)
        .collect();
    assert!(loose.iter().all(|id| !packed.contains(id)));
    let all = all_objects(&repo.repo_path);
    assert_eq!(all.len(), loose.len() + packed.len());
}

#[test]
fn fixture_commit_and_tag_shapes() {
    let repo = default_repo();
    let r = &repo.repo_path;

    // octopus merge
    let octopus = git(r, &["rev-list", "--min-parents=3", "--all"]);
    let parents = git(
        r,
        &[
            "rev-list",
            "--no-walk",
            "--parents",
            octopus.lines().next().expect("no octopus"),
        ],
    );
    assert!(parents.split(' ').count() > 3, "{parents}");

    // NUL byte in a commit message
    let nul = raw_object(repo, "nul-message");
    let msg = &nul[header(&nul).len()..];
    assert!(
        msg.contains(&0),
        "no NUL in {:?}",
        String::from_utf8_lossy(&nul)
    );

    // dual-signed commit and tag (made in compat mode)
    let dual = header(&raw_object(repo, "v0.1-dual^{commit}"));
    assert!(
        dual.contains("\ngpgsig -----BEGIN PGP SIGNATURE-----"),
        "{dual}"
    );
    assert!(
        dual.contains("\ngpgsig-sha256 -----BEGIN PGP SIGNATURE-----"),
        "{dual}"
    );
    let dual_tag = String::from_utf8(raw_object(repo, "v0.1-dual")).unwrap();
    assert!(
        header(dual_tag.as_bytes()).contains("\ngpgsig-sha256 "),
        "{dual_tag}"
    );
    assert!(
        dual_tag.trim_end().ends_with("-----END PGP SIGNATURE-----"),
        "{dual_tag}"
    );
    // SHA-1-only signatures
    let signed = header(&raw_object(repo, "main^{/SHA-1-only signed commit}"));
    assert!(
        signed.contains("\ngpgsig ") && !signed.contains("gpgsig-sha256"),
        "{signed}"
    );
    for tag in [
        "root-signed",
        "v2.0-signed",
        "side-signed",
        "side2-inner",
        "side2-outer",
    ] {
        let t = String::from_utf8(raw_object(repo, tag)).unwrap();
        assert!(
            t.contains("\n-----BEGIN PGP SIGNATURE-----\n") && !t.contains("gpgsig"),
            "{tag}: {t}"
        );
    }
    // signatures verify with the kept public keyring
    for (verb, rev) in [
        ("verify-commit", "v0.1-dual^{commit}"),
        ("verify-tag", "v0.1-dual"),
        ("verify-tag", "side2-outer"),
    ] {
        let out = git_command(r)
            .env("GNUPGHOME", &repo.gnupg_home)
            .args([verb, rev])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{verb} {rev}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // mergetags: a signed merge of a signed tag, and a merge of a tag of a tag
    let merges = git(r, &["rev-list", "--merges", "main"]);
    let mergetag_objects: Vec<String> = merges
        .lines()
        .flat_map(|c| {
            let h = header(&git_bytes(r, &["cat-file", "commit", c]));
            h.lines()
                .filter_map(|l| l.strip_prefix("mergetag object "))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        mergetag_objects.contains(&repo.rev("side-signed^{commit}")),
        "{mergetag_objects:?}"
    );
    assert!(
        mergetag_objects.contains(&repo.rev("side2-inner")),
        "mergetag naming a tag: {mergetag_objects:?}"
    );
    let signed_merge = header(&raw_object(repo, "main^{/Merge tag 'side-signed'}"));
    assert!(
        signed_merge.contains("\nmergetag ") && signed_merge.contains("\ngpgsig "),
        "{signed_merge}"
    );

    // tag of a tag of a tag
    let outermost = repo.rev("v1.0-outermost");
    let l1 = git(r, &["cat-file", "tag", &outermost]);
    assert!(
        l1.starts_with(&format!("object {}\ntype tag\n", repo.rev("v1.0-outer"))),
        "{l1}"
    );
    let l2 = git(r, &["cat-file", "tag", "v1.0-outer"]);
    assert!(
        l2.starts_with(&format!("object {}\ntype tag\n", repo.rev("v1.0"))),
        "{l2}"
    );

    // encoding header, messages and tag bodies without final LF
    let enc = raw_object(repo, "main~1");
    assert!(header(&enc).contains("\nencoding ISO-8859-1"));
    assert!(enc.windows(4).any(|w| w == b"caf\xe9"));
    assert!(!raw_object(repo, "main").ends_with(b"\n"));
    assert!(raw_object(repo, "sig-no-final-newline").ends_with(b"-----END PGP SIGNATURE-----"));
    assert!(!raw_object(repo, "tag-msg-no-newline").ends_with(b"\n"));

    // notes on a commit and on a blob
    let notes = git(r, &["notes", "list"]);
    assert_eq!(notes.lines().count(), 2, "{notes}");
    assert!(notes.contains(&repo.rev("blob-tag^{}")));

    // empty-tree root
    assert_eq!(
        repo.rev("empty-root^{tree}"),
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    );
    assert_eq!(git(r, &["rev-list", "--count", "empty-root"]), "1");

    // reflog-only commit and a dangling blob (only --all-objects sees them)
    let reflog = git(r, &["reflog", "show", "--format=%H", "refs/heads/amended"]);
    let original = reflog.lines().nth(1).expect("amended reflog has 2 entries");
    let reachable = git(r, &["rev-list", "--all"]);
    assert!(!reachable.lines().any(|c| c == original));
}

#[test]
fn fixture_tree_shapes() {
    let repo = default_repo();
    let r = &repo.repo_path;
    // blob, exec bit, symlink, empty blob in the first commit
    let root = git(r, &["ls-tree", &repo.rev("root-annotated^{}")]);
    for want in [
        "100644 blob ",
        "100755 blob ",
        "120000 blob ",
        "040000 tree ",
    ] {
        assert!(root.contains(want), "{root}");
    }
    assert!(
        root.contains("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\tempty.txt"),
        "{root}"
    );

    // odd modes, verbatim
    let odd = tree_entries(&raw_object(repo, "odd^{tree}"));
    let modes: Vec<&str> = odd.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(modes, ["100664", "040000", "100644"]);
    let odd_sub = tree_entries(&git_bytes(r, &["cat-file", "tree", &odd[1].2]));
    assert_eq!(odd_sub[0].0, "100664");

    // unsorted entries with a duplicate name
    let unsorted = tree_entries(&raw_object(repo, "unsorted^{tree}"));
    let names: Vec<&str> = unsorted.iter().map(|e| e.1.as_str()).collect();
    assert_eq!(names, ["zebra.txt", "apple.txt", "dir", "apple.txt"]);

    // no gitlink in the default fixture, one in the gitlink variant
    let trees = git(r, &["log", "--all", "--raw", "--no-abbrev", "--format="]);
    assert!(
        !trees.contains(":000000 160000") && !trees.contains(" 160000 "),
        "{trees}"
    );
    let with = tricky_repo(GITLINK);
    let ls = git(&with.repo_path, &["ls-tree", "main"]);
    assert!(
        ls.contains(&format!("160000 commit {}\tsub", with.sub_head)),
        "{ls}"
    );
}

#[test]
fn fixture_is_deterministic_apart_from_signatures() {
    // two independent builds (two variants): objects that no signature feeds
    // into have the same names
    let (a, b) = (default_repo(), tricky_repo(GITLINK));
    for rev in [
        "root-annotated",
        "root-annotated^{}",
        "odd^{tree}",
        "unsorted^{tree}",
        "empty-root",
    ] {
        assert_eq!(a.rev(rev), b.rev(rev), "{rev}");
    }
    assert_eq!(a.sub_head, b.sub_head);
}

#[test]
fn oracle_maps_every_object_of_the_default_fixture() {
    let repo = default_repo();
    let before = tree_checksums(&repo.root);
    let map = tricky_oracle(FixtureOptions::default());
    let objects = all_objects(&repo.repo_path);
    let mapped: BTreeMap<String, String> = map
        .iter()
        .map(|(k, (_, t))| (k.clone(), t.clone()))
        .collect();
    assert_eq!(
        mapped, objects,
        "oracle must map every object, with its type"
    );
    let targets: BTreeSet<&String> = map.values().map(|(s, _)| s).collect();
    assert_eq!(targets.len(), map.len(), "SHA-256 names are unique");
    assert!(
        map.values()
            .all(|(s, _)| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()))
    );
    // the built-in pairs
    assert_eq!(
        map["4b825dc642cb6eb9a060e54bf8d69288fbee4904"].0,
        "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
    );
    assert_eq!(
        map["e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"].0,
        "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"
    );
    // the oracle does not touch the source repository
    assert_eq!(tree_checksums(&repo.root), before);
}

#[test]
fn oracle_agrees_with_pairs_git_recorded_in_compat_mode() {
    let repo = default_repo();
    let recorded = repo.compat_era_pairs();
    // initial commit (5 blobs + 2 trees + commit), dual-signed commit (blob,
    // tree, commit), dual-signed tag
    assert!(recorded.len() >= 11, "{recorded:?}");
    let map = tricky_oracle(FixtureOptions::default());
    for (sha1, sha256) in &recorded {
        assert_eq!(map.get(sha1).map(|v| &v.0), Some(sha256), "pair of {sha1}");
    }
    let dual_commit = repo.rev("v0.1-dual^{commit}");
    let dual_tag = repo.rev("v0.1-dual");
    assert!(recorded.contains_key(&dual_commit) && recorded.contains_key(&dual_tag));
}

#[test]
fn oracle_engines_and_modes_agree() {
    let repo = default_repo();
    let full = tricky_oracle(FixtureOptions::default());
    let slow = oracle_run_with(&repo.repo_path, true, &[], &["--engine", "hash-object"]);
    assert_eq!(slow.status, 0, "{}", slow.stderr);
    assert_eq!(&slow.map, full);
    // reachable mode: a subset without the unreachable objects: the
    // reflog-only commit, the dangling blob (and intermediate trees that the
    // octopus strategy wrote)
    let reachable = oracle_map(&repo.repo_path, false, &[]);
    let missing: BTreeSet<&str> = full
        .keys()
        .filter(|k| !reachable.contains_key(*k))
        .map(String::as_str)
        .collect();
    let dangling = String::from_utf8(git_with_input(
        &repo.repo_path,
        &["hash-object", "--stdin"],
        b"dangling blob, referenced by nothing\n",
    ))
    .unwrap();
    let reflog_only = repo.rev("amended@{1}");
    assert!(missing.contains(dangling.trim()), "{missing:?}");
    assert!(missing.contains(reflog_only.as_str()), "{missing:?}");
    let with_reflog = oracle_run_with(&repo.repo_path, false, &[], &["--reflog"]);
    assert!(with_reflog.map.contains_key(&reflog_only));
    for (k, v) in &reachable {
        assert_eq!(full.get(k), Some(v));
    }
}

#[test]
fn oracle_refuses_gitlink_without_submodule_map() {
    let repo = tricky_repo(GITLINK);
    let run = oracle_run(&repo.repo_path, true, &[]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    let objects = all_objects(&repo.repo_path);
    assert_eq!(run.map.len() + run.refused.len(), objects.len());
    let gitlink_tree = repo.rev("main^{/add submodule gitlink}^{tree}");
    let (t, why) = &run.refused[&gitlink_tree];
    assert_eq!(t, "tree");
    assert!(
        why.contains("gitlink") && why.contains(&repo.sub_head),
        "{why}"
    );
    // everything above the gitlink is refused too, everything below maps
    assert!(run.refused.contains_key(&repo.rev("main")));
    assert!(run.refused.contains_key(&repo.rev("refs/heads/odd")));
    assert!(run.map.contains_key(&repo.rev("v2.0-signed")));
    assert!(run.map.contains_key(&repo.rev("main^{/octopus merge}")));

    // with the submodule's own map, everything converts
    let (sub_map, _) = sub_oracle(repo);
    assert!(sub_map.contains_key(&repo.sub_head));
    let full = tricky_oracle(GITLINK);
    assert_eq!(full.len(), objects.len());
    for (k, v) in &run.map {
        assert_eq!(
            full.get(k),
            Some(v),
            "same pair with and without the gitlink map"
        );
    }
}

#[test]
fn oracle_refuses_unknown_commit_header() {
    let repo = tricky_repo(UNKNOWN);
    let commit = repo.rev("unknown-header");
    assert!(header(&raw_object(repo, "unknown-header")).contains("\nchange-id "));
    let run = oracle_run(&repo.repo_path, true, &[]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    let refused: Vec<&String> = run.refused.keys().collect();
    assert_eq!(refused, [&commit]);
    assert_eq!(run.map.len() + 1, all_objects(&repo.repo_path).len());
}

#[test]
fn tree_checksums_notice_changes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("sub")).unwrap();
    fs::write(d.join("sub/f"), b"x").unwrap();
    let before = tree_checksums(d);
    assert_eq!(before.len(), 2);
    assert_eq!(tree_checksums(d), before);
    fs::write(d.join("sub/f"), b"y").unwrap();
    assert_ne!(tree_checksums(d), before);
    fs::write(d.join("sub/f"), b"x").unwrap();
    assert_eq!(tree_checksums(d), before);
    fs::create_dir(d.join("empty")).unwrap();
    assert_ne!(tree_checksums(d), before);
}
