//! A repository's statement as it is now, read from its refs, its packs
//! and the map: what `attest` signs, and what `verify --attestation`
//! compares the signed statement with.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::AttestError;
use super::statement::{KIND, StatedMap, StatedRef, Statement, VERSION};
use super::subject::{SourceStatement, Subject};
use crate::hash::ObjectId;
use crate::idmap::{ForEachError, IdMap, export_rows};
use crate::pack::list_packs;
use crate::refs::rehash_refs::{ATTESTATION, SOURCE_ATTESTATION, ref_value};
use crate::refs::{RefTarget, read_source_refs};

/// Why the statements themselves are in the map's `created` table.
pub const CREATED_REASON: &str = "attestation";

/// The statement of `subject` as it is now, with no `previous`.
pub fn collect(subject: &Subject, maps: &[IdMap]) -> Result<Statement, AttestError> {
    let created = created_bases(&maps[0])?;
    let source_of = |id: &ObjectId| -> Result<Option<String>, AttestError> {
        let id = created.get(id).unwrap_or(id);
        for map in maps {
            if let Some(row) = map.lookup(id)? {
                let other = if id.kind() == row.sha1.kind() {
                    row.sha256
                } else {
                    row.sha1
                };
                return Ok(Some(other.to_hex()));
            }
        }
        Ok(None)
    };
    let refs = read_source_refs(&subject.git_dir, subject.format)?;
    let mut stated = Vec::new();
    let mut state = |name: String, target: &RefTarget| -> Result<(), AttestError> {
        stated.push(match target {
            RefTarget::Symbolic(to) => StatedRef::symbolic(name, to.clone()),
            RefTarget::Direct(id) => StatedRef::direct(name, source_of(id)?, id.to_hex()),
        });
        Ok(())
    };
    state("HEAD".into(), &refs.head)?;
    for (name, target) in refs.effective_refs() {
        if name != ATTESTATION {
            state(name, &target)?;
        }
    }
    let source_attestation = match &subject.source_statement {
        SourceStatement::FromRefs => match ref_value(&refs, SOURCE_ATTESTATION) {
            Some(id) => source_of(&id)?,
            None => None,
        },
        SourceStatement::Known(id) => id.map(|id| id.to_hex()),
        SourceStatement::Unknown => None,
    };
    let run = subject.run.clone().unwrap_or_default();
    Ok(Statement {
        statement: KIND.into(),
        version: VERSION,
        tool: run.tool,
        direction: format!(
            "{}-to-{}",
            subject.source_format().name(),
            subject.format.name()
        ),
        source_format: subject.source_format().name().into(),
        dest_format: subject.format.name().into(),
        options: run.options,
        refs: stated,
        map: map_summary(maps, &subject.gitlinks)?,
        packs: pack_names(&subject.git_dir)?,
        source_attestation,
        previous: None,
    })
}

/// Created objects that stand on a converted one (a re-keyed notes
/// commit on its translated notes commit): their SOURCE counterpart is
/// that one's.
fn created_bases(map: &IdMap) -> Result<HashMap<ObjectId, ObjectId>, AttestError> {
    Ok(map
        .created()?
        .into_iter()
        .filter_map(|row| row.stands_for.map(|(_, base)| (row.name, base)))
        .collect())
}

/// The rows of `git-rehash map --export` hashed and counted, the created
/// objects counted, the gitlink pairs hashed.
fn map_summary(maps: &[IdMap], gitlinks: &Path) -> Result<StatedMap, AttestError> {
    let mut digest = Sha256::new();
    let mut rows = 0u64;
    let mut objects: BTreeMap<String, u64> = BTreeMap::new();
    let mut line = Vec::with_capacity(128);
    export_rows(maps, None, |row| {
        // The line `map --export` prints (text format).
        line.clear();
        row.sha1.write_hex(&mut line);
        line.push(b' ');
        row.sha256.write_hex(&mut line);
        line.push(b' ');
        line.extend_from_slice(row.kind.as_str().as_bytes());
        line.push(b'\n');
        digest.update(&line);
        rows += 1;
        *objects.entry(row.kind.as_str().to_string()).or_default() += 1;
        Ok(())
    })
    .map_err(|e| match e {
        ForEachError::Map(e) => AttestError::Map(e),
        ForEachError::Io(e) => AttestError::io(maps[0].path(), e),
    })?;
    let mut created: BTreeMap<String, u64> = BTreeMap::new();
    for row in maps[0].created()? {
        if row.reason != CREATED_REASON {
            *created.entry(row.reason).or_default() += 1;
        }
    }
    let gitlinks_sha256 = match std::fs::read(gitlinks) {
        Ok(bytes) => Some(hex(&Sha256::digest(&bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(AttestError::io(gitlinks, e)),
    };
    Ok(StatedMap {
        rows,
        sha256: hex(&digest.finalize()),
        objects,
        created,
        gitlinks_sha256,
    })
}

/// The names of the repository's packs (`pack-<checksum>`), sorted.
fn pack_names(git_dir: &Path) -> Result<Vec<String>, AttestError> {
    let dir = git_dir.join("objects").join("pack");
    let indexes = list_packs(&dir).map_err(|e| AttestError::io(&dir, e))?;
    Ok(indexes
        .iter()
        .filter_map(|idx| idx.file_stem())
        .map(|stem| stem.to_string_lossy().into_owned())
        .collect())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
