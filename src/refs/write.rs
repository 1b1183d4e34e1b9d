//! Writing the translated refs into the destination git directory.
//!
//! Everything is translated in memory first, so an unmapped ref fails the
//! call before a single file is written; then all files are published
//! together (`publish.rs`: lock file + rename each, two flushes in all).
//! `HEAD` is returned rather than written: the orchestrator writes it
//! last, because a directory with a `HEAD` already looks like a repository
//! to git.

use std::path::{Path, PathBuf};

use super::mapping::{IdMap, Translator};
use super::pseudo::translate_pseudo_ref;
use super::publish::publish_all;
use super::read::SourceRefs;
use super::reflog::translate_reflog;
use super::{PackedRefs, RefTarget, RefsError};
use crate::hash::{HashKind, ObjectId};

/// Replace refs are named after the object they replace.
const REPLACE_PREFIX: &str = "refs/replace/";

/// What [`write_translated_refs`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RefsOutcome {
    /// The exact bytes for the destination's `HEAD` file, for the caller to write last.
    pub head: Vec<u8>,
    /// Loose ref files plus `packed-refs` entries written.
    pub refs_written: usize,
    pub reflog_entries_written: usize,
    /// Reflog entries naming an object without a mapping (typically pruned).
    pub reflog_entries_dropped: usize,
    /// Pseudo-refs not written because an id they name has no mapping.
    pub pseudo_refs_dropped: Vec<String>,
    /// Every file written (refs, `packed-refs`, logs, pseudo-refs; not
    /// `HEAD`), so a caller updating an existing repository can remove the
    /// ones that are no longer wanted.
    pub files: Vec<PathBuf>,
}

/// Translates the snapshot `src` with `map` and writes it into
/// `dest_git_dir`: loose refs stay loose, `packed-refs` keeps its header
/// and order, symbolic refs are unchanged, `refs/replace/<old hex>` is
/// renamed to the translated hex (in loose refs, `packed-refs` and the
/// reflog path alike). Reflog entries and pseudo-refs that cannot be
/// translated are dropped and counted; any other unmapped id is an error.
pub fn write_translated_refs(
    src: &SourceRefs,
    dest_git_dir: &Path,
    to: HashKind,
    map: IdMap<'_>,
) -> Result<RefsOutcome, RefsError> {
    let translator = Translator { to, map };
    let mut outcome = RefsOutcome::default();
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();

    outcome.head = translate_target("HEAD", &src.head, &translator)?.file_bytes();

    for loose in &src.loose {
        let name = translate_name(&loose.name, src.hash, &translator)?;
        let target = translate_target(&loose.name, &loose.target, &translator)?;
        files.push((dest_git_dir.join(&name), target.file_bytes()));
        outcome.refs_written += 1;
    }

    if let Some(packed) = &src.packed {
        let mut entries = Vec::with_capacity(packed.entries.len());
        for entry in &packed.entries {
            let mut translated = entry.clone();
            translated.name = translate_name(&entry.name, src.hash, &translator)?;
            translated.id = translator.required(&entry.name, &entry.id)?;
            translated.peeled = entry
                .peeled
                .map(|peeled| translator.required(&entry.name, &peeled))
                .transpose()?;
            entries.push(translated);
        }
        let mut translated = PackedRefs {
            header: packed.header.clone(),
            entries,
        };
        // Renamed replace refs may now sort differently; a stable sort only
        // moves them, and git trusts the `sorted` trait for binary search.
        if translated.is_sorted() {
            translated.entries.sort_by(|a, b| a.name.cmp(&b.name));
        }
        outcome.refs_written += translated.entries.len();
        files.push((dest_git_dir.join("packed-refs"), translated.to_bytes()));
    }

    for log in &src.reflogs {
        let name = match translate_name(&log.name, src.hash, &translator) {
            Ok(name) => name,
            // The reflog of a replace ref whose object is gone: nothing in it
            // can be translated either, and its name cannot be.
            Err(RefsError::Unmapped { .. }) => {
                outcome.reflog_entries_dropped += log.entries.len();
                continue;
            }
            Err(other) => return Err(other),
        };
        let translated = translate_reflog(log, &translator)?;
        outcome.reflog_entries_written += translated.written;
        outcome.reflog_entries_dropped += translated.dropped;
        // Written even when empty: an existing log file is what tells git to
        // keep logging that ref.
        files.push((dest_git_dir.join("logs").join(&name), translated.bytes));
    }

    for pseudo in &src.pseudo {
        match translate_pseudo_ref(pseudo, &translator)? {
            Some(bytes) => files.push((dest_git_dir.join(&pseudo.name), bytes)),
            None => outcome.pseudo_refs_dropped.push(pseudo.name.clone()),
        }
    }

    publish_all(dest_git_dir, &files)?;
    outcome.files = files.into_iter().map(|(path, _)| path).collect();
    Ok(outcome)
}

fn translate_target(
    refname: &str,
    target: &RefTarget,
    translator: &Translator<'_>,
) -> Result<RefTarget, RefsError> {
    Ok(match target {
        RefTarget::Direct(id) => RefTarget::Direct(translator.required(refname, id)?),
        RefTarget::Symbolic(name) => RefTarget::Symbolic(name.clone()),
    })
}

/// The destination name of a ref: `refs/replace/<from hex>` becomes
/// `refs/replace/<to hex>` (a SHA-256 repository rejects a 40-hex replace
/// ref name as `bad replace ref name`); every other name is unchanged,
/// including replace refs whose name is not an id (git ignores those).
fn translate_name(
    refname: &str,
    from: HashKind,
    translator: &Translator<'_>,
) -> Result<String, RefsError> {
    let replaced = refname
        .strip_prefix(REPLACE_PREFIX)
        .and_then(|hex| ObjectId::from_hex(from, hex.as_bytes()));
    match replaced {
        Some(id) => Ok(format!(
            "{REPLACE_PREFIX}{}",
            translator.required(refname, &id)?
        )),
        None => Ok(refname.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refs::PackedRef;

    fn sha1(byte: u8) -> ObjectId {
        ObjectId::Sha1([byte; 20])
    }

    /// Maps 0x11.. to 0xee.. and 0x22.. to 0x01..: the order of the names flips.
    fn flipping_map(id: &ObjectId) -> Option<ObjectId> {
        match id.as_bytes()[0] {
            0x11 => Some(ObjectId::Sha256([0xee; 32])),
            0x22 => Some(ObjectId::Sha256([0x01; 32])),
            0x33 => Some(ObjectId::Sha256([0x33; 32])),
            _ => None,
        }
    }

    fn snapshot(header: Option<&[u8]>) -> SourceRefs {
        let entry = |name: String, id| PackedRef {
            name,
            id,
            peeled: None,
        };
        SourceRefs {
            hash: HashKind::Sha1,
            head: RefTarget::Symbolic("refs/heads/main".into()),
            loose: vec![],
            packed: Some(PackedRefs {
                header: header.map(<[u8]>::to_vec),
                entries: vec![
                    entry("refs/heads/main".into(), sha1(0x33)),
                    entry(format!("refs/replace/{}", sha1(0x11)), sha1(0x33)),
                    entry(format!("refs/replace/{}", sha1(0x22)), sha1(0x33)),
                    entry("refs/tags/t".into(), sha1(0x33)),
                ],
            }),
            pseudo: vec![],
            reflogs: vec![],
        }
    }

    fn written_names(header: Option<&[u8]>) -> Vec<String> {
        let dir = tempfile::tempdir().expect("tempdir");
        let outcome = write_translated_refs(
            &snapshot(header),
            dir.path(),
            HashKind::Sha256,
            &flipping_map,
        )
        .expect("write");
        assert_eq!(outcome.refs_written, 4);
        let path = dir.path().join("packed-refs");
        let content = std::fs::read(&path).expect("packed-refs written");
        let packed = PackedRefs::parse(&path, HashKind::Sha256, &content).expect("parses back");
        assert_eq!(packed.header.as_deref(), header);
        packed.entries.into_iter().map(|e| e.name).collect()
    }

    #[test]
    fn renamed_replace_refs_are_resorted_when_the_file_is_sorted() {
        let names = written_names(Some(b"# pack-refs with: peeled fully-peeled sorted \n"));
        let (low, high) = ("01".repeat(32), "ee".repeat(32));
        assert_eq!(
            names,
            [
                "refs/heads/main".to_string(),
                format!("refs/replace/{low}"),
                format!("refs/replace/{high}"),
                "refs/tags/t".to_string(),
            ]
        );
    }

    #[test]
    fn unsorted_file_keeps_its_order() {
        let names = written_names(None);
        assert_eq!(names[1], format!("refs/replace/{}", "ee".repeat(32)));
        assert_eq!(names[2], format!("refs/replace/{}", "01".repeat(32)));
    }
}
