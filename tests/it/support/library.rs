//! Every item of the git_rehash library that the tests call, named in this
//! one file: most tests drive the binary, and the few that call the library
//! import from here, so that when the library's modules move only these
//! paths change.

pub use git_rehash::convert::{ConvertOptions, convert, written_depths};
pub use git_rehash::fuzzing;
pub use git_rehash::gitlink_maps::external_map::surrogate_for;
pub use git_rehash::hash::{HashKind, ObjectId};
pub use git_rehash::idmap::{IdMap, MapRow};
pub use git_rehash::loose::{list_loose, loose_path, read_loose};
pub use git_rehash::object::{ObjectKind, object_id, sha1_object_id, sha256_object_id};
pub use git_rehash::pack::{
    DeltaCache, EntryKind, IndexFile, Pack, PackError, PackFile, apply_delta,
};
pub use git_rehash::pack::{PackOutcome, PackWriteError, PackWriter, WrittenEntry};
pub use git_rehash::progress::NoProgress;
pub use git_rehash::repo::dest_layout::map_db as map_path;
pub use git_rehash::translate::{TranslateOptions, translate_commit};
