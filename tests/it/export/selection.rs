//! A DEST converted with a ref selection: the export mirrors only the refs
//! the selection keeps, and leaves MIRROR's others alone, even one whose
//! commit DEST's map knows (which an export would otherwise delete as a
//! ref DEST no longer has).

use super::{assert_fsck, export_ok, refs};
use crate::support::git::git;
use crate::support::history::history_with_topic;
use crate::support::rehash::rehash_convert_ok;
use crate::support::scratch::scratch_dir;

#[test]
fn refs_outside_the_selection_are_left_alone_in_mirror() {
    let root = scratch_dir("export-selection");
    let source = root.join("src");
    history_with_topic(&source);
    git(&source, &["branch", "wip", "main~1"]);
    let dest = root.join("dest.git");
    rehash_convert_ok(
        &source,
        &dest,
        &["--quiet", "--exclude-refs", "refs/heads/wip"],
    );
    assert!(git(&dest, &["for-each-ref", "refs/heads/wip"]).is_empty());
    let mirror = root.join("mirror.git");
    git(
        &root,
        &[
            "clone",
            "-q",
            "--mirror",
            source.to_str().unwrap(),
            mirror.to_str().unwrap(),
        ],
    );
    let before = refs(&mirror);

    let summary = export_ok(&dest, &mirror, &[]);
    assert_eq!(refs(&mirror), before, "{summary}");
    assert_eq!(
        git(&mirror, &["rev-parse", "refs/heads/wip"]),
        git(&source, &["rev-parse", "refs/heads/wip"])
    );
    assert_fsck(&mirror);
}
