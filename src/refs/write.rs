//! Writing the translated refs into the destination git directory, in
//! either backend.
//!
//! The snapshot is translated in memory first ([`translate_snapshot`]),
//! so an unmapped ref fails the call before a single file is written; then
//! it is laid out for the backend and published. Files: each file written
//! together (`publish.rs`: lock file + rename each, two flushes in all);
//! the loose refs git would pack join `packed-refs` (`loose_or_packed.rs`), which
//! keeps its header and order.
//! Reftable: one table holding every ref and reflog replaces the stack
//! (reftable/), beside the `refs/heads` stub and the pseudo-refs git keeps
//! as files. `HEAD` is returned rather than written: the orchestrator
//! writes it last, because a directory with a `HEAD` already looks like a
//! repository to git.

use std::path::{Path, PathBuf};

use super::error::RefsError;
use super::loose_or_packed::{PeelMap, Peeled, merge_packed, packable};
use super::mapping::{TranslateId, Translator};
use super::pseudo::translate_pseudo_ref;
use super::publish::publish_all;
use super::reflog::{Reflog, reflog_bytes, translate_reflog};
use super::reftable::{self, HEAD_STUB, REFS_HEADS_STUB, refs_heads_stub};
use super::snapshot::{LooseRef, SourceRefs};
use super::storage::RefStorage;
use super::{PackedRef, PackedRefs, PseudoRef, RefTarget};
use crate::hash::{HashKind, ObjectId};

/// Replace refs are named after the object they replace.
const REPLACE_PREFIX: &str = "refs/replace/";

/// What [`write_translated_refs`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RefsOutcome {
    /// The exact bytes for the destination's `HEAD` file, for the caller to write last.
    pub head: Vec<u8>,
    /// Refs written: loose ref files plus `packed-refs` entries, or the
    /// refs of the table (`HEAD` and pseudo-refs not counted).
    pub refs_written: usize,
    pub reflog_entries_written: usize,
    /// Reflog entries naming an object without a mapping (typically pruned).
    pub reflog_entries_dropped: usize,
    /// Pseudo-refs not written because an id they name has no mapping.
    pub pseudo_refs_dropped: Vec<String>,
    /// Every file written (refs, `packed-refs`, logs, pseudo-refs, the
    /// table and the `refs/heads` stub; not `HEAD`), so a caller updating
    /// an existing repository can remove the ones that are no longer wanted.
    pub files: Vec<PathBuf>,
}

/// Translates the snapshot `src` with `map` and writes it into
/// `dest_git_dir` in the backend `storage`: symbolic refs are unchanged,
/// `refs/replace/<old hex>` is renamed to the translated hex (in the ref
/// and its reflog alike). Reflog entries and pseudo-refs that cannot be
/// translated are dropped and counted; any other unmapped id is an error.
/// The loose refs git would pack go to `packed-refs` (in a reftable, one
/// table either way), annotated tags with the object `peel` says they
/// name, which a table keeps beside the tag as git writes it.
pub fn write_translated_refs(
    src: &SourceRefs,
    dest_git_dir: &Path,
    to: HashKind,
    map: TranslateId<'_>,
    peel: PeelMap<'_>,
    storage: RefStorage,
) -> Result<RefsOutcome, RefsError> {
    let translator = Translator { to, map };
    let mut outcome = RefsOutcome::default();
    let translated = translate_snapshot(src, &translator, peel, &mut outcome)?;
    outcome.reflog_entries_written = translated.reflogs.iter().map(|l| l.entries.len()).sum();
    let files = match storage {
        RefStorage::Files => {
            outcome.head = translated.head.file_bytes();
            outcome.refs_written =
                translated.loose.len() + translated.packed.as_ref().map_or(0, |p| p.entries.len());
            files_layout(&translated, dest_git_dir)
        }
        RefStorage::Reftable => {
            let written = reftable::write_stack(dest_git_dir, &translated)?;
            outcome.head = HEAD_STUB.to_vec();
            outcome.refs_written = translated.effective_refs().len();
            outcome.files.push(written.table);
            let mut files = vec![(refs_heads_stub(dest_git_dir)?, REFS_HEADS_STUB.to_vec())];
            files.extend(pseudo_files(&written.files, dest_git_dir));
            files
        }
    };
    publish_all(dest_git_dir, &files)?;
    outcome
        .files
        .extend(files.into_iter().map(|(path, _)| path));
    Ok(outcome)
}

/// Points each ref of `updates` at its new id in `dest_git_dir`, whose
/// refs [`write_translated_refs`] wrote in the backend `storage`, without
/// reflog entries: a loose ref file each (hiding a `packed-refs` entry), or
/// one more table on top of the stack. Returns the files written.
pub fn point_refs(
    dest_git_dir: &Path,
    storage: RefStorage,
    updates: &[(String, ObjectId)],
) -> Result<Vec<PathBuf>, RefsError> {
    let Some((_, first)) = updates.first() else {
        return Ok(Vec::new());
    };
    match storage {
        RefStorage::Files => {
            let files: Vec<(PathBuf, Vec<u8>)> = updates
                .iter()
                .map(|(name, id)| (dest_git_dir.join(name), RefTarget::Direct(*id).file_bytes()))
                .collect();
            publish_all(dest_git_dir, &files)?;
            Ok(files.into_iter().map(|(path, _)| path).collect())
        }
        RefStorage::Reftable => {
            reftable::push_ref_updates(dest_git_dir, first.kind(), updates).map(|t| vec![t])
        }
    }
}

/// `src` with every id (and replace-ref name) translated; what cannot be
/// translated is dropped and counted in `outcome`, or is an error. The
/// loose refs git would pack, and `peel` can peel, are moved to `packed`.
fn translate_snapshot(
    src: &SourceRefs,
    translator: &Translator<'_>,
    peel: PeelMap<'_>,
    outcome: &mut RefsOutcome,
) -> Result<SourceRefs, RefsError> {
    let head = translate_target("HEAD", &src.head, translator)?;

    let mut loose = Vec::with_capacity(src.loose.len());
    let mut moved = Vec::new();
    for entry in &src.loose {
        let name = translate_name(&entry.name, src.hash, translator)?;
        let target = translate_target(&entry.name, &entry.target, translator)?;
        // The packed form of a ref that names an object: its id and, for
        // an annotated tag, the object it finally names. None: it stays
        // loose (symbolic, per-worktree, or a peel not known or not mapped).
        let packed_form = match (&entry.target, &target) {
            (RefTarget::Direct(source), &RefTarget::Direct(id)) if packable(&entry.name) => {
                match peel(source) {
                    Peeled::NotATag => Some((id, None)),
                    Peeled::To(object) => translator
                        .optional(&entry.name, &object)?
                        .map(|peeled| (id, Some(peeled))),
                    Peeled::Unknown => None,
                }
            }
            _ => None,
        };
        match packed_form {
            Some((id, peeled)) => moved.push(PackedRef { name, id, peeled }),
            None => loose.push(LooseRef { name, target }),
        }
    }
    // Renamed replace refs may now sort differently.
    loose.sort_by(|a, b| a.name.cmp(&b.name));
    moved.sort_by(|a, b| a.name.cmp(&b.name));

    let packed = match &src.packed {
        Some(packed) => {
            let mut entries = Vec::with_capacity(packed.entries.len());
            for entry in &packed.entries {
                let mut translated = entry.clone();
                translated.name = translate_name(&entry.name, src.hash, translator)?;
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
            Some(translated)
        }
        None => None,
    };
    let packed = merge_packed(packed, moved);

    let mut reflogs = Vec::with_capacity(src.reflogs.len());
    for log in &src.reflogs {
        let name = match translate_name(&log.name, src.hash, translator) {
            Ok(name) => name,
            // The reflog of a replace ref whose object is gone: nothing in it
            // can be translated either, and its name cannot be.
            Err(RefsError::Unmapped { .. }) => {
                outcome.reflog_entries_dropped += log.entries.len();
                continue;
            }
            Err(other) => return Err(other),
        };
        let translated = translate_reflog(log, translator)?;
        outcome.reflog_entries_dropped += translated.dropped;
        // Kept even when empty: an existing log is what tells git to keep
        // logging that ref.
        reflogs.push(Reflog {
            name,
            entries: translated.entries,
        });
    }
    reflogs.sort_by(|a, b| (a.name != "HEAD", &a.name).cmp(&(b.name != "HEAD", &b.name)));

    let mut pseudo = Vec::with_capacity(src.pseudo.len());
    for entry in &src.pseudo {
        match translate_pseudo_ref(entry, translator)? {
            Some(content) => pseudo.push(PseudoRef {
                name: entry.name.clone(),
                content,
            }),
            None => outcome.pseudo_refs_dropped.push(entry.name.clone()),
        }
    }

    Ok(SourceRefs {
        hash: translator.to,
        storage: src.storage,
        head,
        loose,
        packed,
        pseudo,
        reflogs,
    })
}

/// The files of the files backend for `refs`: loose refs, `packed-refs`,
/// `logs/`, pseudo-refs.
fn files_layout(refs: &SourceRefs, dest_git_dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for entry in &refs.loose {
        files.push((dest_git_dir.join(&entry.name), entry.target.file_bytes()));
    }
    if let Some(packed) = &refs.packed {
        files.push((dest_git_dir.join("packed-refs"), packed.to_bytes()));
    }
    for log in &refs.reflogs {
        files.push((
            dest_git_dir.join("logs").join(&log.name),
            reflog_bytes(&log.entries),
        ));
    }
    files.extend(pseudo_files(&refs.pseudo, dest_git_dir));
    files
}

fn pseudo_files(pseudo: &[PseudoRef], dest_git_dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    pseudo
        .iter()
        .map(|p| (dest_git_dir.join(&p.name), p.content.file_bytes()))
        .collect()
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
            storage: RefStorage::Files,
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
            &|_| Peeled::NotATag,
            RefStorage::Files,
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

    #[test]
    fn loose_refs_are_packed_unless_their_peel_is_unknown_or_unmapped() {
        let loose = |name: &str, target| LooseRef {
            name: name.into(),
            target,
        };
        let src = SourceRefs {
            packed: None,
            loose: vec![
                loose("refs/heads/c", RefTarget::Direct(sha1(0x33))),
                loose("refs/heads/sym", RefTarget::Symbolic("refs/heads/c".into())),
                loose("refs/tags/a", RefTarget::Direct(sha1(0x11))),
                loose("refs/tags/b", RefTarget::Direct(sha1(0x22))),
                loose("refs/tags/unknown", RefTarget::Direct(sha1(0x33))),
            ],
            ..snapshot(None)
        };
        // 0x11 peels to 0x33, 0x22 to an object the map lacks.
        let peel = |id: &ObjectId| match id.as_bytes()[0] {
            0x11 => Peeled::To(sha1(0x33)),
            0x22 => Peeled::To(sha1(0x44)),
            _ => Peeled::NotATag,
        };
        let translator = Translator {
            to: HashKind::Sha256,
            map: &flipping_map,
        };
        let only_unknown = |id: &ObjectId| match id.as_bytes()[0] {
            0x33 => Peeled::Unknown,
            _ => peel(id),
        };
        let mut outcome = RefsOutcome::default();
        let mut translated = translate_snapshot(&src, &translator, &peel, &mut outcome).unwrap();
        let names = |refs: &SourceRefs| -> Vec<String> {
            refs.loose.iter().map(|r| r.name.clone()).collect()
        };
        assert_eq!(names(&translated), ["refs/heads/sym", "refs/tags/b"]);
        let packed = translated.packed.take().expect("a packed-refs");
        assert!(packed.is_sorted());
        let entry = |name: &str| packed.entries.iter().find(|e| e.name == name).cloned();
        assert_eq!(
            entry("refs/tags/a").unwrap().peeled,
            Some(ObjectId::Sha256([0x33; 32]))
        );
        assert_eq!(entry("refs/heads/c").unwrap().peeled, None);
        assert_eq!(packed.entries.len(), 3);

        let kept = translate_snapshot(&src, &translator, &only_unknown, &mut outcome).unwrap();
        assert_eq!(
            names(&kept),
            [
                "refs/heads/c",
                "refs/heads/sym",
                "refs/tags/b",
                "refs/tags/unknown"
            ]
        );
        // Nothing peeled: every loose ref stays loose.
        let as_is =
            translate_snapshot(&src, &translator, &|_| Peeled::Unknown, &mut outcome).unwrap();
        assert_eq!(as_is.loose.len(), 5);
        assert!(as_is.packed.is_none());
    }
}
