//! `git-rehash convert` end to end, with git as the oracle: the names it
//! gives, the repository it writes, the policies for what git itself
//! refuses, submodules, notes, fork networks (alternates), and
//! interrupted or repeated runs.

mod alternates;
mod compat_map;
mod dest_repository;
mod gitlinks;
mod mergetags;
mod notes;
mod oracle_names;
mod read_back;
mod ref_selection;
mod resume;
mod reverse;
mod source_pack_kinds;
mod submodules;
mod unknown_headers;
