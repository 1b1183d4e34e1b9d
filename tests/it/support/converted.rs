//! The default fixture converted once per test process, shared by every
//! test that only reads a converted repository (read-only: a test that
//! damages DEST works on a copy).

use std::path::PathBuf;
use std::process::Output;
use std::sync::OnceLock;

use super::file_tree::tree_checksums;
use super::fixture::default_repo;
use super::oracle::OracleMap;
use super::rehash::{rehash_convert, rehash_export_map};
use super::scratch::scratch_dir;

pub struct DefaultConversion {
    pub dest: PathBuf,
    /// The `convert --quiet` run's output.
    pub output: Output,
    /// sha1 -> (sha256, type), from `git-rehash map --export`.
    pub map: OracleMap,
}

/// `convert --quiet` of the default fixture; also checks the source is
/// byte-identical afterwards.
pub fn default_conversion() -> &'static DefaultConversion {
    static DONE: OnceLock<DefaultConversion> = OnceLock::new();
    DONE.get_or_init(|| {
        let repo = default_repo();
        let before = tree_checksums(&repo.root);
        let dest = scratch_dir("convert-default").join("dest.git");
        let output = rehash_convert(&repo.repo_path, &dest, &["--quiet"]);
        assert!(
            output.status.success(),
            "convert failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            before,
            tree_checksums(&repo.root),
            "the source repository was modified"
        );
        let map = rehash_export_map(&dest);
        DefaultConversion { dest, output, map }
    })
}
