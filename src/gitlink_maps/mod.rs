//! The SHA-1 <-> SHA-256 pairs of gitlink targets (submodule commits,
//! which are not objects of the repository that pins them), for both
//! directions: the maps a caller names (`--submodule-map`), the surrogate
//! names of `--unmapped-gitlinks=placeholder` (external_map.rs), and the
//! record of the pairs DEST's trees were translated with
//! (`rehash/gitlinks.txt`, recorded.rs).

mod error;
pub mod external_map;
pub mod recorded;

pub use error::{GitlinkMapError, InvalidContent};

/// What to do with a gitlink whose submodule commit no map knows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnmappedGitlinks {
    /// Stop before writing anything, listing each submodule path (default).
    #[default]
    Refuse,
    /// Lossy: name it with a deterministic surrogate, recorded as such.
    Placeholder,
}
