//! Every path inside DEST, in one place: git's own layout of a bare
//! repository, and git-rehash's files under `rehash/` (docs/files.md).

use std::path::{Path, PathBuf};

/// `objects/`.
pub fn objects_dir(dest: &Path) -> PathBuf {
    dest.join("objects")
}

/// `objects/pack/`: the packs, their indexes and reverse indexes.
pub fn pack_dir(dest: &Path) -> PathBuf {
    objects_dir(dest).join("pack")
}

/// The directories a DEST has from its creation on.
pub const SKELETON: [&str; 4] = ["objects/pack", "objects/info", "refs/heads", "refs/tags"];

/// `objects/loose-object-idx`: git's map between the two names of every
/// object, written with `--git-compat-map`.
pub fn loose_object_idx(dest: &Path) -> PathBuf {
    objects_dir(dest).join("loose-object-idx")
}

/// `objects/info/alternates`: only in a DEST that shares a pool's objects
/// (`--shared-with`), naming the pool's `objects/`.
pub fn alternates(dest: &Path) -> PathBuf {
    super::alternates::alternates_file(&objects_dir(dest))
}

/// `HEAD`, written last but one: with `config`, what makes DEST a
/// repository.
pub fn head(dest: &Path) -> PathBuf {
    dest.join("HEAD")
}

/// `config`, written last.
pub fn config(dest: &Path) -> PathBuf {
    dest.join("config")
}

/// `refs/`: the loose refs (files backend).
pub fn refs_dir(dest: &Path) -> PathBuf {
    dest.join("refs")
}

/// `logs/`: the reflogs (files backend).
pub fn logs_dir(dest: &Path) -> PathBuf {
    dest.join("logs")
}

/// `packed-refs` (files backend).
pub fn packed_refs(dest: &Path) -> PathBuf {
    dest.join("packed-refs")
}

/// A pseudo-ref at the top of DEST (`ORIG_HEAD`, `FETCH_HEAD`, ...).
pub fn pseudo_ref(dest: &Path, name: &str) -> PathBuf {
    dest.join(name)
}

/// The ref directories git expects in a repository, kept even when empty.
pub fn kept_ref_dirs(dest: &Path) -> [PathBuf; 3] {
    let refs = refs_dir(dest);
    [refs.join("heads"), refs.join("tags"), refs]
}

/// `modules/`: where converted submodules go, as git keeps them.
pub fn modules_dir(dest: &Path) -> PathBuf {
    dest.join("modules")
}

/// The name of [`modules_dir`] inside DEST.
pub const MODULES: &str = "modules";

/// `rehash/`: git-rehash's own files.
pub fn rehash_dir(dest: &Path) -> PathBuf {
    dest.join("rehash")
}

/// `rehash/map.sqlite`: the SHA-1 <-> SHA-256 map and the run journal.
pub fn map_db(dest: &Path) -> PathBuf {
    rehash_dir(dest).join("map.sqlite")
}

/// `rehash/convert.lock`: held (flock) while a run writes DEST.
pub fn lock(dest: &Path) -> PathBuf {
    rehash_dir(dest).join("convert.lock")
}

/// `rehash/scan-checkpoint`: what an interrupted scan had learned.
pub fn scan_checkpoint(dest: &Path) -> PathBuf {
    rehash_dir(dest).join("scan-checkpoint")
}

/// `rehash/search-record`: the delta search's choices for the blob
/// pass's last chunks, for a resumed run.
pub fn search_record(dest: &Path) -> PathBuf {
    rehash_dir(dest).join("search-record")
}

/// `rehash/reach-records`: what each object the map pass translated
/// reaches, kept until the bitmap and the commit-graph are written.
pub fn reach_records(dest: &Path) -> PathBuf {
    rehash_dir(dest).join("reach-records")
}

/// `rehash/gitlinks.txt`: the gitlink pairs a conversion used.
pub fn gitlinks(dest: &Path) -> PathBuf {
    rehash_dir(dest).join("gitlinks.txt")
}

/// `objects/info/commit-graph`: written with the pack's bitmap (`pack::reach`).
pub fn commit_graph(dest: &Path) -> PathBuf {
    objects_dir(dest).join("info").join("commit-graph")
}

/// `rehash/attest-scratch/`: the repository `git-rehash attest` signs the
/// statement in (it borrows DEST's objects); removed when the statement
/// is written.
pub fn attest_scratch(dest: &Path) -> PathBuf {
    rehash_dir(dest).join("attest-scratch")
}
