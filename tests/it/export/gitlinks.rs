//! Gitlinks (submodule commits) are not objects of DEST: their SHA-1
//! names come from the submodule's map, as in the forward direction, with
//! the same options. Without one the export is refused, naming the path;
//! `--submodule-map` names them; `--unmapped-gitlinks=placeholder` gives
//! deterministic surrogates. The pairs used are recorded beside DEST's
//! map, so later exports and `verify` need not be told again.

use sha1::{Digest as _, Sha1};

use super::{assert_fsck, clone_mirror, empty_mirror, export_ok, export_refused, refs, scene};
use crate::support::git::git;
use crate::support::rehash::rehash_verify;
use crate::support::repo_files::pack_files;

/// Commits a gitlink entry `path` pinning the SHA-256 commit `target`.
fn pin(work: &std::path::Path, path: &str, target: &str) {
    let entry = format!("160000,{target},{path}");
    git(work, &["update-index", "--add", "--cacheinfo", &entry]);
    git(work, &["commit", "-q", "-m", &format!("pin {path}")]);
}

fn gitlink_in_mirror(mirror: &std::path::Path, path: &str) -> String {
    git(mirror, &["ls-tree", "refs/heads/main", "--", path])
}

#[test]
fn gitlinks_are_named_through_a_submodule_map_or_a_placeholder() {
    let scene = scene("export-gitlinks", &[]);
    let mirror = clone_mirror(&scene, "mirror.git");
    let (target, sha1) = ("ab".repeat(32), "cd".repeat(20));
    pin(&scene.work, "sub", &target);
    let before = (refs(&mirror), pack_files(&mirror));

    let message = export_refused(&scene.dest, &mirror, &[]);
    assert!(message.contains(&format!("{target} at 'sub'")), "{message}");
    assert!(message.contains("--submodule-map"), "{message}");
    assert_eq!((refs(&mirror), pack_files(&mirror)), before);

    let map = scene.root.join("sub-map.txt");
    std::fs::write(&map, format!("# pairs\n{sha1} {target}\n")).unwrap();
    export_ok(
        &scene.dest,
        &mirror,
        &["--submodule-map", map.to_str().unwrap()],
    );
    assert_eq!(
        gitlink_in_mirror(&mirror, "sub"),
        format!("160000 commit {sha1}\tsub")
    );
    let recorded = std::fs::read_to_string(scene.dest.join("rehash/gitlinks.txt")).unwrap();
    assert!(
        recorded.contains(&format!("{sha1} {target} submodule-map")),
        "{recorded}"
    );

    // A gitlink no map knows, with the lossy escape hatch.
    let other = "ef".repeat(32);
    pin(&scene.work, "sub2", &other);
    let summary = export_ok(&scene.dest, &mirror, &["--unmapped-gitlinks=placeholder"]);
    assert!(summary.contains("SURROGATE"), "{summary}");
    let surrogate = hex(&Sha1::digest(format!(
        "git-rehash surrogate gitlink {other}"
    )));
    assert_eq!(
        gitlink_in_mirror(&mirror, "sub2"),
        format!("160000 commit {surrogate}\tsub2")
    );
    assert_fsck(&mirror);

    // Recorded: an export into a new mirror needs neither option, and
    // DEST with its new pairs verifies.
    let empty = empty_mirror(&scene.root);
    export_ok(&scene.dest, &empty, &["--quiet"]);
    assert_eq!(refs(&empty), refs(&mirror));
    let verified = rehash_verify(&scene.dest, None);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
