//! The SHA-1 <-> SHA-256 pairs of gitlink targets (submodule commits,
//! which are not objects of the repository that pins them), for both
//! directions: the maps a caller names (`--submodule-map`), the surrogate
//! names of `--unmapped-gitlinks=placeholder` (external_map.rs), and the
//! record of the pairs DEST's trees were translated with
//! (`rehash/gitlinks.txt`, recorded.rs).

pub mod external_map;
pub mod recorded;
