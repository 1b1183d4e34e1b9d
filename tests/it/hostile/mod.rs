//! Broken and hostile input: damaged or forged packs and indexes,
//! malformed or missing objects, SHA-1 collisions, repositories and
//! destinations git-rehash cannot use. Each refusal ends in exit status 1
//! with a message naming the file and the object or offset, no panic, an
//! untouched SOURCE and a DEST that git does not open
//! ([`crate::support::watched_source::Source`] checks all of it).

mod collision;
mod dest;
mod objects;
mod pack;
mod repo;
mod reverse;
