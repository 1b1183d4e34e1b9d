//! The refs of DEST are SOURCE's refs with SHA-256 names, in one
//! `packed-refs` as `git pack-refs --all` leaves them.

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
    // Loose refs join the packed ones, annotated tags with their peeled
    // line (what `show-ref -d` reads): only symbolic refs stay files.
    assert!(!converted.dest.join("refs/tags/v3.0-loose").exists());
    let loose = |dir: &std::path::Path| {
        git(dir, &["for-each-ref", "--format=%(refname) %(symref)"])
            .lines()
            .filter(|line| !line.ends_with(' '))
            .map(|line| line.split(' ').next().unwrap_or_default().to_owned())
            .collect::<BTreeSet<_>>()
    };
    for name in loose(&converted.dest) {
        assert!(converted.dest.join(&name).is_file(), "{name} is symbolic");
    }
    let packed = std::fs::read_to_string(converted.dest.join("packed-refs")).unwrap();
    assert!(packed.contains(" refs/tags/v3.0-loose\n^"), "{packed}");
    let peeled = |dir: &std::path::Path| git(dir, &["show-ref", "-d", "refs/tags/v3.0-loose"]);
    assert_eq!(
        peeled(&converted.dest),
        translate_ids(&converted.map, &peeled(&repo.repo_path))
    );
}
