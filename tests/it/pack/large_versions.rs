//! Many large versions of one file: one piece of the delta search, whose
//! tries are diffed side by side and whose ranked tries a short enough
//! delta spares. The pack must not depend on the thread count, and every
//! version must be a sound delta.

use std::path::{Path, PathBuf};

use crate::support::git::git;
use crate::support::history::imported_commits;
use crate::support::rehash::{rehash_convert_ok, rehash_verify_ok};
use crate::support::repo_files::{listed_objects, pack_files};
use crate::support::scratch::scratch_dir;

const VERSIONS: usize = 12;

/// A log of about 300 KiB (over the size whose ranked tries a short delta
/// spares) that grows by one line per commit and has one old line edited
/// in every third, beside a small file.
fn source() -> PathBuf {
    let mut lines: Vec<String> = (0..10_000)
        .map(|i| format!("{{\"run\": {i}, \"ns\": {}}},\n", i * 7919 % 100_003))
        .collect();
    let mut commits = Vec::new();
    for c in 0..VERSIONS {
        lines.push(format!("{{\"run\": \"new {c}\"}},\n"));
        if c % 3 == 0 {
            lines[c * 401] = format!("{{\"edited\": {c}}},\n");
        }
        let files = vec![
            ("data.js".to_string(), lines.concat()),
            ("note".to_string(), format!("commit {c}\n")),
        ];
        commits.push(("commit\n".to_string(), files));
    }
    imported_commits("large-versions", &commits)
}

fn pack_name(dest: &Path) -> String {
    let packs = pack_files(dest);
    assert_eq!(packs.len(), 1, "{packs:?}");
    packs[0].file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn large_versions_make_the_same_sound_pack_on_any_thread_count() {
    let src = source();
    let dir = scratch_dir("large-versions-dest");
    let mut names = Vec::new();
    for jobs in ["1", "3"] {
        let dest = dir.join(format!("j{jobs}.git"));
        rehash_convert_ok(&src, &dest, &["--quiet", "--jobs", jobs]);
        names.push(pack_name(&dest));
    }
    assert_eq!(names[0], names[1], "-j1 and -j3");

    let dest = dir.join("j3.git");
    git(&dest, &["fsck", "--strict"]);
    rehash_verify_ok(&dest, &src);
    // Every version of the log but one is a delta (of under 4 KiB).
    let listed = listed_objects(&dest);
    let large_deltas = listed
        .iter()
        .filter(|o| o.base.is_some() && o.kind == "blob" && o.size < 4096)
        .count();
    assert!(
        large_deltas >= VERSIONS - 1,
        "{large_deltas} small blob deltas:\n{listed:#?}"
    );
}
