//! The conversion's view of SOURCE's objects: where each is stored
//! (the inventory of packs and loose objects), the object table that names
//! them in both hash worlds, and the caches every pass reads through.

pub mod by_dest_name;
pub mod inventory;
pub mod name_hashes;
pub mod read_cache;
pub mod recent_lookups;
pub mod table;
