//! The SHA-256 fixture converted to SHA-1 once per test process, shared
//! by the tests that only read the result (read-only: copy it to change
//! it). Its submodule is converted first, and that conversion's map names
//! the gitlink, as a user who converts a superproject would do it.

use std::path::PathBuf;
use std::sync::OnceLock;

use super::file_tree::tree_checksums;
use super::oracle::OracleMap;
use super::rehash::{rehash_convert_ok, rehash_export_map};
use super::scratch::scratch_dir;
use super::sha256_fixture::sha256_repo;

pub struct Reversed {
    /// The SHA-1 DEST of the fixture.
    pub dest: PathBuf,
    /// The SHA-1 DEST of its submodule.
    pub sub_dest: PathBuf,
    /// sha1 -> (sha256, type), from `git-rehash map --export` of DEST.
    pub map: OracleMap,
}

impl Reversed {
    /// The SHA-1 name DEST gives the SHA-256 object `sha256`.
    pub fn sha1_of(&self, sha256: &str) -> String {
        self.map
            .iter()
            .find(|(_, (s, _))| s == sha256)
            .map(|(sha1, _)| sha1.clone())
            .unwrap_or_else(|| panic!("{sha256} has no row in DEST's map"))
    }
}

/// `convert --quiet` of the SHA-256 fixture (and of its submodule, first);
/// SOURCE is checked byte-identical afterwards.
pub fn reversed_fixture() -> &'static Reversed {
    static DONE: OnceLock<Reversed> = OnceLock::new();
    DONE.get_or_init(|| {
        let repo = sha256_repo();
        let before = tree_checksums(&repo.root);
        let out = scratch_dir("reverse-fixture");
        let sub_dest = out.join("sub.git");
        rehash_convert_ok(&repo.sub_path, &sub_dest, &["--quiet"]);
        let dest = out.join("dest.git");
        let sub_map = sub_dest.join("rehash/map.sqlite");
        let sub_map = sub_map.to_str().expect("scratch paths are UTF-8");
        rehash_convert_ok(
            &repo.repo_path,
            &dest,
            &["--quiet", "--submodule-map", sub_map],
        );
        assert_eq!(
            before,
            tree_checksums(&repo.root),
            "the source repository was modified"
        );
        let map = rehash_export_map(&dest);
        Reversed {
            dest,
            sub_dest,
            map,
        }
    })
}
