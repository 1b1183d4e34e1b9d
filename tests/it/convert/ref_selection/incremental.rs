//! Later runs and the selection DEST records: kept when a run names none,
//! accepted with a note when it keeps every ref the recorded one kept,
//! refused when it would leave out refs whose objects DEST holds.

use super::{assert_fsck_strict, hosted, mapped, pull_request, reachable, ref_names};
use crate::support::history::commit_file;
use crate::support::refusal::{USAGE, assert_clean_exit};
use crate::support::rehash::{rehash_convert, rehash_convert_ok};
use crate::support::scratch::scratch_dir;

#[test]
fn a_later_run_keeps_the_recorded_selection_and_may_widen_it() {
    let source = hosted("selection-kept");
    let dest = scratch_dir("selection-kept-dest").join("dest.git");
    rehash_convert_ok(
        &source,
        &dest,
        &["--quiet", "--exclude-refs", "refs/pull/*"],
    );

    // SOURCE moves on: a commit on main, a new pull request.
    commit_file(&source, "later.txt", "later\n", "later work");
    pull_request(&source, 6, "main", "later.txt");
    let out = rehash_convert_ok(&source, &dest, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ref selection --exclude-refs 'refs/pull/*'"),
        "{stderr}"
    );
    assert!(!ref_names(&dest).iter().any(|r| r.starts_with("refs/pull/")));
    assert_eq!(
        mapped(&dest),
        reachable(&source, &["--exclude=refs/pull/*", "--all"])
    );

    // Every ref now: wider, so accepted, and said.
    let out = rehash_convert_ok(&source, &dest, &["--reachable-only"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "the ref selection changed from --exclude-refs 'refs/pull/*' to --reachable-only"
        ),
        "{stderr}"
    );
    assert_eq!(ref_names(&dest), ref_names(&source));
    assert_eq!(mapped(&dest), reachable(&source, &["--all"]));
    assert_fsck_strict(&dest);

    // Back to fewer refs: their objects are in DEST, so refused.
    let out = rehash_convert(
        &source,
        &dest,
        &["--quiet", "--exclude-refs", "refs/pull/*"],
    );
    assert_clean_exit(
        &out,
        USAGE,
        &[
            "which keeps refs/pull/1/head",
            "cannot take objects out of DEST",
            "--reachable-only",
        ],
    );
    assert_eq!(ref_names(&dest), ref_names(&source), "nothing changed");
}

#[test]
fn a_dest_holding_every_object_refuses_a_selection() {
    let source = hosted("selection-after-all");
    let dest = scratch_dir("selection-after-all-dest").join("dest.git");
    rehash_convert_ok(&source, &dest, &["--quiet"]);
    let out = rehash_convert(
        &source,
        &dest,
        &["--quiet", "--exclude-refs", "refs/pull/*"],
    );
    assert_clean_exit(&out, USAGE, &["holds every object of SOURCE", "--force"]);
}
