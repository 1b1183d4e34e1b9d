//! A ref selection in the SHA-256 -> SHA-1 direction: the hosted mirror
//! converted whole into SHA-256, then back with `--exclude-refs
//! 'refs/pull/*'`, holds exactly what the other refs reach, with the
//! SHA-1 names the original has.

use super::{assert_fsck_strict, hosted, mapped, reachable, ref_names};
use crate::support::git::git;
use crate::support::rehash::{rehash_convert_ok, rehash_verify_ok};
use crate::support::scratch::scratch_dir;

#[test]
fn excluded_refs_are_left_out_converting_back_to_sha1() {
    let source = hosted("selection-reverse");
    let root = scratch_dir("selection-reverse-dest");
    let (middle, back) = (root.join("sha256.git"), root.join("back.git"));
    rehash_convert_ok(&source, &middle, &["--quiet"]);
    rehash_convert_ok(
        &middle,
        &back,
        &["--quiet", "--exclude-refs", "refs/pull/*"],
    );
    assert_eq!(git(&back, &["rev-parse", "--show-object-format"]), "sha1");
    let kept: std::collections::BTreeSet<String> = ref_names(&source)
        .into_iter()
        .filter(|name| !name.starts_with("refs/pull/"))
        .collect();
    assert_eq!(ref_names(&back), kept);
    assert_fsck_strict(&back);
    let wanted = reachable(&source, &["--exclude=refs/pull/*", "--all"]);
    assert_eq!(mapped(&back), wanted);
    assert!(reachable(&source, &["--all"]).len() > wanted.len());
    rehash_verify_ok(&back, &middle);
}
