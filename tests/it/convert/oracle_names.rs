//! Every SHA-256 name of a conversion equals the one git computes itself
//! through `extensions.compatObjectFormat`.

use crate::support::converted::default_conversion;
use crate::support::fixture::{FixtureOptions, default_repo};
use crate::support::id_translation::to_sha256;
use crate::support::oracle::tricky_oracle;
use crate::support::repo_files::all_objects;

#[test]
fn map_equals_gits_own_sha256_names_for_every_object() {
    let converted = default_conversion();
    let oracle = tricky_oracle(FixtureOptions::default());
    let present = all_objects(&default_repo().repo_path);
    assert_eq!(
        converted.map.len(),
        present.len(),
        "one row per stored object"
    );
    assert_eq!(
        &converted.map, oracle,
        "git-rehash's map differs from git's"
    );
}

#[test]
fn git_compat_era_pairs_agree() {
    let converted = default_conversion();
    for (sha1, sha256) in default_repo().compat_era_pairs() {
        assert_eq!(to_sha256(&converted.map, &sha1), sha256, "object {sha1}");
    }
}
