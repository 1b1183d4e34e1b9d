//! The deltas of the packs a conversion writes. A history whose source
//! pack has delta chains far deeper than 50 is converted with the source
//! pairing reused, with a smaller `--depth`, and with `--no-reuse-deltas`;
//! each result must pass `git fsck --strict` and `git verify-pack -v`,
//! hold deltas, keep chains within the depth asked, and name every object
//! exactly as the default conversion does (SHA-256 names never depend on
//! packing). The fixture's own deltas are reused for blobs and made anew
//! for trees.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::support::fixture::default_repo;
use crate::support::git::{git, git_with_input};
use crate::support::history::{Imported, imported_commits};
use crate::support::oracle::OracleMap;
use crate::support::rehash::{
    rehash_command, rehash_convert_ok, rehash_export_map, rehash_verify_ok, run_ok,
};
use crate::support::repo_files::{
    OBJ_OFS_DELTA, OBJ_REF_DELTA, PackEntry, listed_objects, pack_entries, pack_files,
};
use crate::support::scratch::scratch_dir;

/// A repository whose pack git wrote with `--window=50 --depth=200`: one
/// file edited in 120 commits (blob, tree and commit chains over 100 deep),
/// other files in many versions, plus two commits written afterwards as
/// loose objects (no source pairing).
fn source() -> &'static Path {
    static DONE: OnceLock<PathBuf> = OnceLock::new();
    DONE.get_or_init(|| {
        let mut text = String::new();
        let mut commits: Vec<Imported> = Vec::new();
        for i in 0..120 {
            writeln!(text, "line {i}: the quick brown fox {}", i * 7919 % 1000).unwrap();
            let other = format!("{}\n", "other file content ".repeat(i % 7 + 20));
            // A long shared body makes commits worth deltifying.
            let msg = format!(
                "commit {i}\n\n{}\n",
                "A long explanation of the change. ".repeat(20)
            );
            let files = vec![
                ("a.txt".to_string(), text.clone()),
                ("dir/sub/b.txt".to_string(), other),
                (format!("dir/many/f{}.txt", i % 40), text.clone()),
            ];
            commits.push((msg, files));
        }
        let repo = imported_commits("pack-deltas", &commits);
        // One thread: pack-objects splits its search between threads, which
        // makes the chains it picks (and their depth) vary from run to run.
        git(
            &repo,
            &[
                "-c",
                "pack.threads=1",
                "repack",
                "-q",
                "-adf",
                "--window=50",
                "--depth=200",
            ],
        );
        // Loose objects: two more versions of a.txt in a commit each.
        let mut parent = git(&repo, &["rev-parse", "refs/heads/main"]);
        for extra in ["one more line\n", "and another\n"] {
            text.push_str(extra);
            let blob = git_with_input(&repo, &["hash-object", "-w", "--stdin"], text.as_bytes());
            let blob = String::from_utf8(blob).unwrap().trim().to_owned();
            let tree = git_with_input(
                &repo,
                &["mktree"],
                format!("100644 blob {blob}\ta.txt\n").as_bytes(),
            );
            let tree = String::from_utf8(tree).unwrap().trim().to_owned();
            parent = git(&repo, &["commit-tree", &tree, "-p", &parent, "-m", "loose"]);
        }
        git(&repo, &["update-ref", "refs/heads/main", &parent]);
        repo
    })
}

/// Converts the fixture with `extra` options into a fresh DEST.
fn convert(label: &str, extra: &[&str]) -> PathBuf {
    let dest = scratch_dir(label).join("dest.git");
    let mut args = vec!["--quiet"];
    args.extend(extra);
    rehash_convert_ok(source(), &dest, &args);
    dest
}

/// What `git verify-pack -v` says of every pack of a repository.
#[derive(Debug, Default)]
struct Packs {
    /// Entries stored as deltas, by type.
    deltas: BTreeMap<String, usize>,
    longest_chain: usize,
    bytes: u64,
}

fn verify_packs(git_dir: &Path) -> Packs {
    let mut out = Packs::default();
    for pack in pack_files(git_dir) {
        out.bytes += std::fs::metadata(&pack).expect("pack").len();
    }
    for object in listed_objects(git_dir) {
        if object.base.is_some() {
            *out.deltas.entry(object.kind).or_default() += 1;
        }
        out.longest_chain = out.longest_chain.max(object.depth as usize);
    }
    out
}

/// fsck --strict, git-rehash verify, and the same map as the default run.
fn check(dest: &Path) {
    git(dest, &["fsck", "--strict", "--no-dangling"]);
    rehash_verify_ok(dest, source());
    static DEFAULT: OnceLock<OracleMap> = OnceLock::new();
    let default = DEFAULT.get_or_init(|| rehash_export_map(&convert("pack-deltas-default", &[])));
    assert_eq!(&rehash_export_map(dest), default, "packing changed a name");
}

#[test]
fn the_fixture_has_chains_deeper_than_50() {
    let source = verify_packs(source());
    assert!(source.longest_chain > 60, "{source:?}");
}

/// Blobs, trees and commits are all stored as deltas, many of each.
fn assert_deltas_of_every_kind(packs: &Packs) {
    for kind in ["blob", "tree", "commit"] {
        assert!(
            packs.deltas.get(kind).copied().unwrap_or(0) > 20,
            "{kind}: {packs:?}"
        );
    }
}

#[test]
fn the_default_search_makes_deltas_of_every_kind_within_the_depth() {
    let dest = convert("pack-deltas-default-search", &[]);
    check(&dest);
    let packs = verify_packs(&dest);
    assert_deltas_of_every_kind(&packs);
    assert!(
        packs.longest_chain <= 50 && packs.longest_chain > 10,
        "{packs:?}"
    );
}

#[test]
fn reused_pairing_is_cut_at_the_default_depth() {
    // --window 0 keeps the source pairing, whose chains are over 60 long.
    let dest = convert("pack-deltas-reuse", &["--window", "0"]);
    check(&dest);
    let packs = verify_packs(&dest);
    for kind in ["blob", "tree"] {
        assert!(
            packs.deltas.get(kind).copied().unwrap_or(0) > 20,
            "{packs:?}"
        );
    }
    assert!(
        packs.longest_chain <= 50 && packs.longest_chain > 10,
        "{packs:?}"
    );
}

#[test]
fn depth_limit_is_obeyed_with_reuse_and_with_the_search() {
    for window in ["0", "250"] {
        for depth in ["0", "3"] {
            let dest = convert(
                &format!("pack-deltas-depth{depth}-window{window}"),
                &["--depth", depth, "--window", window],
            );
            check(&dest);
            let packs = verify_packs(&dest);
            let depth: usize = depth.parse().unwrap();
            assert!(packs.longest_chain <= depth, "depth {depth}: {packs:?}");
            assert_eq!(packs.deltas.is_empty(), depth == 0, "{packs:?}");
        }
    }
}

#[test]
fn window_search_without_reuse_finds_deltas_within_the_depth() {
    for (depth, window) in [("50", "250"), ("3", "10")] {
        let dest = convert(
            &format!("pack-deltas-noreuse{depth}"),
            &["--no-reuse-deltas", "--window", window, "--depth", depth],
        );
        check(&dest);
        let packs = verify_packs(&dest);
        assert_deltas_of_every_kind(&packs);
        let depth: usize = depth.parse().unwrap();
        assert!(packs.longest_chain <= depth, "depth {depth}: {packs:?}");
    }
}

#[test]
fn the_candidate_log_lists_every_delta_the_search_chose() {
    let log = scratch_dir("pack-deltas-log").join("candidates.tsv");
    let dest = convert(
        "pack-deltas-logged",
        &[
            "--no-reuse-deltas",
            "--window",
            "10",
            "--candidate-log",
            log.to_str().expect("utf-8"),
        ],
    );
    check(&dest);
    let text = std::fs::read_to_string(&log).expect("the log");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("sha1\ttype\tsize\tdelta\tdelta_zlib\tdistance\tbase\tsource_distance\tname")
    );
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut bases: BTreeMap<String, usize> = BTreeMap::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 9, "{line}");
        *by_kind.entry(f[1].to_owned()).or_default() += 1;
        *bases.entry(f[6].to_owned()).or_default() += 1;
        let number = |i: usize| f[i].parse::<u64>().expect("a number");
        assert!(
            number(3) < number(2),
            "a delta is smaller than its object: {line}"
        );
        assert!(number(5) < 10, "within the window: {line}");
        assert!(matches!(f[8], "same-name" | "other-name"), "{line}");
    }
    // With --no-reuse-deltas every delta of the pack is the search's.
    assert_eq!(by_kind, verify_packs(&dest).deltas);
    // The fixture's source pack pairs the versions of each file: the
    // search finds many of the same pairs, and others.
    assert!(bases.get("source").is_some_and(|&n| n > 0), "{bases:?}");
    assert!(
        bases
            .keys()
            .all(|b| ["source", "other", "none"].contains(&b.as_str()))
    );
}

#[test]
fn name_hash_version_1_gives_a_valid_pack_too() {
    let dest = convert(
        "pack-deltas-namehash1",
        &[
            "--no-reuse-deltas",
            "--window",
            "10",
            "--name-hash-version",
            "1",
        ],
    );
    check(&dest);
    assert_deltas_of_every_kind(&verify_packs(&dest));
}

#[test]
fn without_a_window_only_the_source_pairing_makes_deltas() {
    // --window 0: nothing is searched; the loose a.txt versions and the
    // commits git paired with newer ones are whole.
    let dest = convert("pack-deltas-window0", &["--window", "0"]);
    check(&dest);
    let plain = verify_packs(&dest);
    let searched = verify_packs(&convert("pack-deltas-window10", &["--window", "10"]));
    // A search makes more blob and commit deltas than the pairing alone.
    let count = |p: &Packs, kind: &str| p.deltas.get(kind).copied().unwrap_or(0);
    assert!(
        count(&searched, "blob") > count(&plain, "blob"),
        "{plain:?} {searched:?}"
    );
    assert!(
        count(&searched, "commit") > count(&plain, "commit"),
        "{plain:?} {searched:?}"
    );
    // Nothing at all with --no-reuse-deltas and no window.
    let none = verify_packs(&convert(
        "pack-deltas-nothing",
        &["--window", "0", "--no-reuse-deltas"],
    ));
    assert!(none.deltas.is_empty(), "{none:?}");
}

/// `convert --no-reuse-deltas ARGS` with segments of `segment_objects`.
fn convert_in_segments(name: &str, segment_objects: &str, args: &[&str]) -> PathBuf {
    let dest = scratch_dir(name).join("dest.git");
    run_ok(
        rehash_command()
            .env("GIT_REHASH_TEST_SEGMENT_OBJECTS", segment_objects)
            .args(["convert", "--quiet", "--no-reuse-deltas"])
            .args(args)
            .arg(source())
            .arg(&dest),
    );
    dest
}

#[test]
fn small_segments_keep_chains_valid() {
    // Many segments of 37 objects: deltas whose base fell into another
    // segment are kept, and the finish step folds them into one pack.
    let dest = convert_in_segments("pack-deltas-segments", "37", &["--depth", "5"]);
    check(&dest);
    let packs = verify_packs(&dest);
    assert_eq!(pack_files(&dest).len(), 1);
    assert!(
        packs.longest_chain <= 5 && !packs.deltas.is_empty(),
        "{packs:?}"
    );
}

#[test]
fn the_pack_does_not_depend_on_the_thread_count() {
    let packs = |jobs: &str| {
        let dest =
            convert_in_segments(&format!("pack-deltas-j{jobs}"), "100000", &["--jobs", jobs]);
        // A pack's name is its checksum.
        let names: Vec<_> = pack_files(&dest)
            .iter()
            .map(|p| p.file_name().expect("name").to_owned())
            .collect();
        names
    };
    assert_eq!(packs("1"), packs("3"));
}

#[test]
fn source_deltas_are_reused_for_blobs_and_remade_for_trees() {
    // --window 0: the source pairing, nothing searched.
    let dest = scratch_dir("pack-deltas-default-repo-window0").join("dest.git");
    rehash_convert_ok(
        &default_repo().repo_path,
        &dest,
        &["--quiet", "--window", "0"],
    );
    let source_deltas: usize = pack_files(&default_repo().git_dir())
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "pack"))
        .map(|p| {
            pack_entries(p, "sha1")
                .iter()
                .filter(|e| e.kind == OBJ_OFS_DELTA || e.kind == OBJ_REF_DELTA)
                .count()
        })
        .sum();
    assert!(source_deltas > 0, "the fixture has deltas");
    let dest_deltas: Vec<PackEntry> = pack_files(&dest)
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "pack"))
        .flat_map(|p| pack_entries(p, "sha256"))
        .filter(|e| e.kind == OBJ_OFS_DELTA)
        .collect();
    assert!(
        !dest_deltas.is_empty(),
        "deltas of the source pack are reused"
    );
    let kinds: BTreeSet<String> = dest_deltas
        .iter()
        .map(|e| git(&dest, &["cat-file", "-t", &e.id]))
        .collect();
    assert!(kinds.contains("blob"), "blob deltas are copied: {kinds:?}");
    assert!(
        kinds.contains("tree"),
        "tree deltas are made anew: {kinds:?}"
    );
}
