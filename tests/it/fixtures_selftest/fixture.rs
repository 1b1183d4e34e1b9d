//! The fixture holds every corner case its header promises: refs of every
//! kind, packs with both delta types and loose objects, odd commits, tags
//! and trees, and the same names on every build.

use std::collections::BTreeSet;
use std::fs;

use super::{header_of, raw_object};
use crate::support::fixture::{FixtureOptions, default_repo, tricky_repo};
use crate::support::git::{git, git_bytes, git_command};
use crate::support::repo_files::{
    OBJ_OFS_DELTA, OBJ_REF_DELTA, all_objects, loose_objects, pack_entries, pack_files,
};

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
    let msg = &nul[header_of(&nul).len()..];
    assert!(
        msg.contains(&0),
        "no NUL in {:?}",
        String::from_utf8_lossy(&nul)
    );

    // dual-signed commit and tag (made in compat mode)
    let dual = header_of(&raw_object(repo, "v0.1-dual^{commit}"));
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
        header_of(dual_tag.as_bytes()).contains("\ngpgsig-sha256 "),
        "{dual_tag}"
    );
    assert!(
        dual_tag.trim_end().ends_with("-----END PGP SIGNATURE-----"),
        "{dual_tag}"
    );
    // SHA-1-only signatures
    let signed = header_of(&raw_object(repo, "main^{/SHA-1-only signed commit}"));
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
            let h = header_of(&git_bytes(r, &["cat-file", "commit", c]));
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
    let signed_merge = header_of(&raw_object(repo, "main^{/Merge tag 'side-signed'}"));
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
    assert!(header_of(&enc).contains("\nencoding ISO-8859-1"));
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
    let with = tricky_repo(FixtureOptions::GITLINK);
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
    let (a, b) = (default_repo(), tricky_repo(FixtureOptions::GITLINK));
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
