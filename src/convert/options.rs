//! What a conversion is asked to do: [`ConvertOptions`].

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::gitlink_maps::UnmappedGitlinks;
use crate::pack::NameHashVersion;
use crate::refs::{RefSelection, RefStorage};

/// What to convert and how.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    pub source: PathBuf,
    pub dest: PathBuf,
    /// Refuse commit header fields git 2.47 does not know, as git does.
    pub strict_headers: bool,
    /// Delete an existing git-rehash DEST first and start over.
    pub force: bool,
    /// zlib level for newly compressed data.
    pub compression: u32,
    /// `--window`: the objects before each one, in the search's order,
    /// that the delta search considers as its base; 0 searches nothing and
    /// keeps the source packs' pairing instead.
    pub window: usize,
    /// `--depth`: the longest delta chain written.
    pub depth: u32,
    /// With `window` 0, reuse the source packs' pairing (which object is a
    /// delta of which); `false` (`--no-reuse-deltas`) stores every object
    /// whole then. A search (`window` > 0) chooses every base itself.
    pub reuse_deltas: bool,
    /// Diff each object against every object of the window, as git does,
    /// instead of the newest few and the most resembling others (a
    /// benchmark aid: what the ranking loses).
    pub try_every_base: bool,
    /// `--name-hash-version`: the path hash the window search sorts by.
    pub name_hash_version: NameHashVersion,
    /// `--candidate-log` (a benchmark aid): a file that gets one line per
    /// delta the window search chose, saying where its base was found
    /// (`convert/write/candidate_log.rs`).
    pub candidate_log: Option<PathBuf>,
    /// Worker threads; `None` = all cores.
    pub jobs: Option<usize>,
    /// Set (by a Ctrl-C handler) to stop at the next checkpoint with
    /// [`crate::pipeline::Interrupted`].
    pub interrupt: Option<Arc<AtomicBool>>,
    // --- interop with submodules and git's compat mode ---
    /// Write `objects/loose-object-idx` and `compatObjectFormat = sha1`.
    pub git_compat_map: bool,
    /// Map databases or `<sha1> <sha256>` files naming gitlink targets.
    pub submodule_maps: Vec<PathBuf>,
    pub unmapped_gitlinks: UnmappedGitlinks,
    /// What to do with a mergetag whose tagged object SOURCE lacks.
    pub unmapped_mergetags: UnmappedMergetags,
    /// Convert the submodule repositories in SOURCE's `modules/` first,
    /// into DEST's `modules/`, and name gitlinks through their maps.
    pub recurse_submodules: bool,
    /// `--submodule PATH=REPO`: convert REPO first as the submodule at PATH.
    pub submodules: Vec<SubmoduleSource>,
    /// Put a commit on top of each notes ref whose notes are named by
    /// SHA-256 (`git notes` in DEST then finds them).
    pub rekey_notes: bool,
    /// `--shared-with`: an earlier conversion of the pool SOURCE borrows
    /// objects from. Objects its map has are neither copied nor mapped
    /// again; DEST borrows them through `objects/info/alternates`. `None`
    /// on a later run keeps the share DEST records.
    pub shared_with: Option<PathBuf>,
    /// `--ref-format`: DEST's ref backend. `None`: SOURCE's on a first run,
    /// DEST's own on a later one.
    pub ref_format: Option<RefStorage>,
    /// `--refs`, `--exclude-refs`, `--reachable-only`: DEST holds what the
    /// selected refs (and `HEAD`) reach. `None`: every object SOURCE holds
    /// on a first run, the selection DEST records on a later one.
    pub ref_selection: Option<RefSelection>,
}

impl ConvertOptions {
    /// The default `--window`: as `git repack -f --window=250`, the deep
    /// repack a converted repository would otherwise get. Each object is
    /// diffed against a few of those 250 only (`pack::Tries`).
    pub const DEFAULT_WINDOW: usize = 250;

    /// Whether the source packs' pairing is kept: only without a search.
    pub fn reuses_pairing(&self) -> bool {
        self.reuse_deltas && self.window == 0
    }

    pub fn new(source: impl Into<PathBuf>, dest: impl Into<PathBuf>) -> Self {
        ConvertOptions {
            source: source.into(),
            dest: dest.into(),
            strict_headers: false,
            force: false,
            compression: 6,
            window: Self::DEFAULT_WINDOW,
            depth: 50,
            reuse_deltas: true,
            try_every_base: false,
            name_hash_version: NameHashVersion::V2,
            candidate_log: None,
            jobs: None,
            interrupt: None,
            git_compat_map: false,
            submodule_maps: Vec::new(),
            unmapped_gitlinks: UnmappedGitlinks::Refuse,
            unmapped_mergetags: UnmappedMergetags::Refuse,
            recurse_submodules: false,
            submodules: Vec::new(),
            rekey_notes: false,
            shared_with: None,
            ref_format: None,
            ref_selection: None,
        }
    }
}

/// What to do with a `mergetag` whose embedded tag names an object SOURCE
/// does not have: no exact SHA-256 translation of it exists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnmappedMergetags {
    /// Stop before writing anything, listing every such commit (default).
    #[default]
    Refuse,
    /// Copy the field as it is (SHA-1 object line, signature over its
    /// original bytes); the map records the commit as translated so, which
    /// keeps the inverse translation exact.
    Verbatim,
}

/// `--submodule PATH=REPO`: the repository of the submodule at PATH.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubmoduleSource {
    pub path: String,
    pub repo: PathBuf,
}

impl std::str::FromStr for SubmoduleSource {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('=') {
            Some((path, repo)) if !path.is_empty() && !repo.is_empty() => Ok(SubmoduleSource {
                path: path.trim_end_matches('/').to_string(),
                repo: PathBuf::from(repo),
            }),
            _ => Err(format!("expected PATH=REPOSITORY, found {s:?}")),
        }
    }
}
