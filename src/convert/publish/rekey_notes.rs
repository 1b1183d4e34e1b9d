//! `--rekey-notes`: make `git notes` in DEST find the notes.
//!
//! Notes trees are translated like any tree, so their paths stay the
//! SOURCE hex of the annotated objects (the translation must stay exact and
//! reversible: docs/translation.md, "Round trips"). With `--rekey-notes`, each notes ref
//! (`refs/notes/*`) of DEST gets one more commit on top of the translated
//! one: its tree holds every note at the DEST name of its object, in
//! the fan-out git would write for that many notes, non-note entries kept
//! at their paths. Author and committer are those of SOURCE's notes commit
//! (identity and time), so the commit is the same on every run until the
//! notes ref moves in SOURCE.
//!
//! These trees and commits have no counterpart in SOURCE's hash: they are
//! written as loose objects and recorded in the map's `created` table
//! (migrations 0003 and 0011), which `verify` reads.

use std::path::Path;

use super::notes_tree::{PathEntry, build_trees, classify, fanouts, note_path};
use crate::convert::error::ConvertError;
use crate::convert::error::CorruptInput;
use crate::convert::outcome::RekeyedRef;
use crate::convert::source_objects::inventory::Inventory;
use crate::convert::source_objects::table::ObjectTable;
use crate::hash::{HashKind, ObjectId};
use crate::idmap::{CreatedRow, IdMap};
use crate::loose::write_loose_named;
use crate::object::{ObjectKind, ReferenceRole, for_each_reference, object_id};
use crate::pack::DeltaCache;
use crate::refs::SourceRefs;
use crate::repo::dest_layout;

/// Why the objects were created, as recorded in the map.
pub const REASON: &str = "rekey-notes";

/// The message of the re-keying commit, whose notes are keyed by `dest`'s
/// names.
pub fn message(dest: HashKind) -> String {
    let hash = match dest {
        HashKind::Sha1 => "SHA-1",
        HashKind::Sha256 => "SHA-256",
    };
    format!("Notes re-keyed to {hash} names by git-rehash\n")
}

/// Re-keys every notes ref of `refs`; the caller points DEST's refs at the
/// new commits ([`RekeyedRef::commit`]).
pub fn rekey_notes(
    refs: &SourceRefs,
    inventory: &Inventory,
    table: &ObjectTable,
    dest: &Path,
    map: &mut IdMap,
) -> Result<Vec<RekeyedRef>, ConvertError> {
    let mut done = Vec::new();
    let mut reader = Reader {
        inventory,
        table,
        cache: DeltaCache::new(32 << 20),
    };
    for (name, target) in refs.effective_refs() {
        let Some(id) = target.id().filter(|_| name.starts_with("refs/notes/")) else {
            continue;
        };
        let Some(base) = table.map_source(&id) else {
            continue; // refs were written: unreachable
        };
        let (kind, body) = reader.read(&id)?;
        if kind != ObjectKind::Commit {
            continue; // not a notes history git would read
        }
        let mut created = Vec::new();
        let rekeyed = rekey_one(&name, &body, base, &mut reader, dest, map, &mut created)?;
        map.record_created(&created)?;
        done.push(rekeyed);
    }
    Ok(done)
}

fn rekey_one(
    name: &str,
    commit: &[u8],
    base: ObjectId,
    reader: &mut Reader<'_>,
    dest: &Path,
    map: &IdMap,
    created: &mut Vec<CreatedRow>,
) -> Result<RekeyedRef, ConvertError> {
    let direction = reader.table.direction();
    let mut tree = None;
    for_each_reference(
        ObjectKind::Commit,
        commit,
        direction.source(),
        |id, role| {
            if role == ReferenceRole::CommitTree {
                tree = Some(id);
            }
        },
    )
    .map_err(|e| malformed(base, e.to_string()))?;
    let tree = tree.ok_or_else(|| malformed(base, "no tree".into()))?;
    let ident = committer(commit).ok_or_else(|| malformed(base, "no committer".into()))?;

    let (notes, others) = classify(tree, direction.source(), &mut |id| {
        reader.read(id).map(|(_, body)| body)
    })?;
    let table = reader.table;
    let translate = |id: &ObjectId| {
        table.map_source(id).ok_or_else(|| {
            ConvertError::from(CorruptInput::Malformed {
                id: base,
                kind: ObjectKind::Commit,
                reason: format!("notes entry {id} has no {} name", direction.dest()),
            })
        })
    };
    // Notes of objects SOURCE has, by DEST key; the others stay put.
    let mut rekeyed: Vec<(ObjectId, &[u8], ObjectId)> = Vec::new();
    let mut kept = Vec::new();
    for note in &notes {
        let value = translate(&note.value)?;
        match table.find(&note.key).and_then(|i| table.dest_id(i)) {
            Some(key) => rekeyed.push((key, &note.mode, value)),
            None => kept.push(PathEntry {
                path: note.path.clone(),
                mode: note.mode.clone(),
                id: value,
            }),
        }
    }
    rekeyed.sort_by_key(|r| r.0);
    let keys: Vec<Vec<u8>> = rekeyed.iter().map(|r| r.0.as_bytes().to_vec()).collect();
    let mut entries: Vec<PathEntry> = rekeyed
        .iter()
        .zip(fanouts(&keys))
        .map(|((key, mode, value), fanout)| PathEntry {
            path: note_path(key, fanout),
            mode: mode.to_vec(),
            id: *value,
        })
        .collect();
    let kept_unmapped = kept.len();
    entries.extend(kept);
    for other in others {
        let id = translate(&other.id)?;
        entries.push(PathEntry { id, ..other });
    }

    let objects = dest_layout::objects_dir(dest);
    let mut write = |kind: ObjectKind, body: &[u8]| -> Result<ObjectId, ConvertError> {
        let id = object_id(direction.dest(), kind, body)
            .map_err(|c| malformed(base, format!("the re-keyed notes {kind}: {c}")))?;
        write_loose_named(&objects, id, kind, body)?;
        // A tree equal to a translated one (no notes moved) is not new;
        // nor is git's empty tree, which has a name in both hashes.
        if id != direction.dest().empty_tree() && map.lookup(&id)?.is_none() {
            created.push(CreatedRow {
                name: id,
                kind,
                reason: REASON.into(),
                stands_for: None,
            });
        }
        Ok(id)
    };
    let root = build_trees(&entries, &mut |body| write(ObjectKind::Tree, body))?;
    let message = message(direction.dest());
    let body =
        format!("tree {root}\nparent {base}\nauthor {ident}\ncommitter {ident}\n\n{message}");
    let commit_id = write(ObjectKind::Commit, body.as_bytes())?;
    if let Some(row) = created.iter_mut().find(|r| r.name == commit_id) {
        row.stands_for = Some((name.to_string(), base));
    }
    Ok(RekeyedRef {
        name: name.to_string(),
        commit: commit_id,
        notes: rekeyed.len(),
        kept_unmapped,
    })
}

/// The value of the commit's `committer` header (identity and time).
fn committer(commit: &[u8]) -> Option<String> {
    let header_end = commit
        .windows(2)
        .position(|w| w == b"\n\n")
        .map_or(commit.len(), |p| p + 1);
    commit[..header_end]
        .split(|&b| b == b'\n')
        .find_map(|line| line.strip_prefix(b"committer "))
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

fn malformed(id: ObjectId, reason: String) -> ConvertError {
    CorruptInput::Malformed {
        id,
        kind: ObjectKind::Commit,
        reason: format!("notes commit: {reason}"),
    }
    .into()
}

struct Reader<'a> {
    inventory: &'a Inventory,
    table: &'a ObjectTable,
    cache: DeltaCache,
}

impl Reader<'_> {
    /// A SOURCE object by its SOURCE name.
    fn read(&mut self, id: &ObjectId) -> Result<(ObjectKind, Vec<u8>), ConvertError> {
        let i = self
            .table
            .find(id)
            .ok_or(CorruptInput::NotDecoded { id: *id })?;
        let mut body = Vec::new();
        let kind = self
            .inventory
            .read(self.table, i, &mut self.cache, &mut body)?;
        Ok((kind, body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committer_is_read_from_the_header_only() {
        let body = b"tree 1\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0100\n\ncommitter X\n";
        assert_eq!(committer(body).as_deref(), Some("C <c> 2 +0100"));
        assert_eq!(committer(b"tree 1\n\ncommitter X\n"), None);
    }
}
