//! The refs of DEST are SOURCE's refs with SHA-256 names, kept as packed
//! or loose as they were.

use std::collections::BTreeSet;

use crate::support::converted::default_conversion;
use crate::support::fixture::default_repo;
use crate::support::git::git;
use crate::support::id_translation::{to_sha256, translate_ids};

#[test]
fn refs_read_back_identically() {
    let converted = default_conversion();
    let repo = default_repo();
    let fmt = "--format=%(refname) %(objecttype) %(objectname) %(*objectname) %(symref)";
    let source = git(&repo.repo_path, &["for-each-ref", fmt]);
    let dest = git(&converted.dest, &["for-each-ref", fmt]);
    let expected = translate_ids(&converted.map, &source);
    let sort = |s: &str| s.lines().map(str::to_owned).collect::<BTreeSet<_>>();
    assert_eq!(sort(&expected), sort(&dest));
    // HEAD: symbolic in the fixture (a work tree on main).
    assert_eq!(
        git(&converted.dest, &["symbolic-ref", "HEAD"]),
        git(&repo.repo_path, &["symbolic-ref", "HEAD"])
    );
    assert_eq!(
        git(&converted.dest, &["rev-parse", "HEAD"]),
        to_sha256(&converted.map, &repo.rev("HEAD"))
    );
    // Replace refs are renamed to the SHA-256 name of the replaced object.
    let replaces = git(&converted.dest, &["replace", "-l"]);
    let source_replaces = git(&repo.repo_path, &["replace", "-l"]);
    assert_eq!(replaces, translate_ids(&converted.map, &source_replaces));
    assert!(!replaces.is_empty());
    // packed refs stay packed, loose refs stay loose.
    assert!(converted.dest.join("packed-refs").is_file());
    assert!(converted.dest.join("refs/tags/v3.0-loose").is_file());
}
