//! What the tests share: running git and git-rehash, the fixture
//! repositories and git's own SHA-1 -> SHA-256 map of them (the oracle),
//! and builders of files git would never write.
//!
//! Shared fixtures are built once per test process and are read-only: a
//! test that changes a repository works on a copy
//! ([`file_tree::copy_dir`]).

pub mod converted;
pub mod file_tree;
pub mod fixture;
pub mod fork_network;
pub mod git;
pub mod history;
pub mod id_translation;
pub mod library;
pub mod noise;
pub mod oracle;
pub mod process;
pub mod raw_object;
pub mod raw_pack;
pub mod refusal;
pub mod rehash;
pub mod repo_files;
pub mod reversed;
pub mod scratch;
pub mod serving;
pub mod sha256_fixture;
pub mod synthetic_map;
pub mod tmpfs;
pub mod unmapped_mergetags;
pub mod watched_source;
