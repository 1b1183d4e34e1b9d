//! `git-rehash convert` of a SHA-256 repository into SHA-1, with git as
//! the oracle: the SHA-1 names git's compat mode gives, the repository it
//! writes, round trips through both directions, and the map commands on a
//! SHA-1 DEST.

mod dest_repository;
mod interop;
mod map_queries;
mod oracle_names;
mod round_trips;
