//! Signed statements of a conversion (`git-rehash attest`,
//! `verify --attestation`; docs/verify.md).
//!
//! A statement says what a repository is: which git-rehash made it from
//! which object format with which options, every ref with the SOURCE
//! object it came from, the SHA-256 of the map's export and the object
//! counts, the pack names, and SOURCE's own statement when SOURCE was
//! itself converted. It is the JSON message of an annotated tag signed
//! with the user's git signing setup, which `refs/rehash/attestation`
//! names; a later statement's tag points at the one before, so the ref
//! carries the whole history of statements (`chain.rs`).
//!
//! The files, in the order of a run: `subject.rs` (the repository and
//! what its statement is built from), `run_record.rs` (the tool and
//! options a conversion records in its map), `collect.rs` (the statement
//! as the repository is now), `statement.rs` (its JSON), `sign.rs` (`git
//! tag -s` in a scratch repository, then the tag stored and the ref
//! moved), `chain.rs` (statements read back), `check.rs` (signatures
//! checked and the newest statement compared with the repository now);
//! `git.rs` runs git.
//!
//! Nothing here depends on the direction of the conversion: both object
//! formats are fields of the statement and of the [`Subject`].

mod chain;
mod check;
mod collect;
mod error;
mod git;
mod run_record;
mod sign;
mod statement;
mod subject;

pub use chain::StatementTag;
pub use check::{CheckOptions, Checked, check};
pub use collect::CREATED_REASON;
pub use error::AttestError;
pub use run_record::{META_KEY, RunRecord};
pub use statement::{StatedMap, StatedRef, Statement};
pub use subject::{SourceStatement, Subject, object_format};

use std::fs;

use crate::hash::ObjectId;
use crate::idmap::{CreatedRow, IdMap};
use crate::object::ObjectKind;
use crate::refs::rehash_refs::{ATTESTATION, attestation_of};
use crate::refs::{RefTarget, SourceRefs, read_source_refs};

/// What [`attest`] did.
#[derive(Clone, Debug)]
pub struct Attested {
    /// The newest statement's tag (the new one, or the unchanged one).
    pub tag: ObjectId,
    /// The statement before it, if any.
    pub previous: Option<ObjectId>,
    /// The repository is as its newest statement says: no new one was made.
    pub unchanged: bool,
    pub statement: Statement,
}

/// Writes a new statement of `subject` into it, signed, unless the
/// newest one still says what the repository is.
pub fn attest(subject: &Subject) -> Result<Attested, AttestError> {
    let not_attestable = |reason: &str| AttestError::NotAttestable {
        path: subject.git_dir.clone(),
        reason: reason.to_string(),
    };
    if subject.run.is_none() {
        return Err(not_attestable(
            "its map does not record the options of the run that made it (an earlier \
             git-rehash made it); run the same `git-rehash convert` again, which records them",
        ));
    }
    let _lock = take_lock(subject)?;
    let maps = subject.open_maps()?;
    if maps[0].meta("state")?.as_deref() != Some("complete")
        || !maps[0].pending_segments()?.is_empty()
    {
        return Err(not_attestable(
            "its conversion is not finished; run the same `git-rehash convert` again first",
        ));
    }
    let mut statement = collect::collect(subject, &maps)?;
    let git = git::Git::new(&subject.git_dir);
    let previous = attestation_of(&subject.git_dir, subject.format)?;
    if let Some(previous) = previous {
        let newest = StatementTag::read(&git, subject.format, &previous)?;
        let before = newest.previous(subject.format);
        if let Ok(stated) = newest.statement {
            let mut unchanged = stated.clone();
            unchanged.previous = None;
            if unchanged == statement {
                return Ok(Attested {
                    tag: previous,
                    previous: before,
                    unchanged: true,
                    statement: stated,
                });
            }
        }
    }
    statement.previous = previous.map(|id| id.to_hex());
    let object = match previous {
        Some(previous) => previous,
        None => anchor(&read_source_refs(&subject.git_dir, subject.format)?).ok_or_else(|| {
            not_attestable("it has no ref that names an object to attach the statement to")
        })?,
    };
    let signed = sign::sign(
        &subject.git_dir,
        subject.format,
        &subject.scratch,
        &statement.to_message(),
        &object,
    )?;
    drop(maps);
    sign::install(&subject.git_dir, &signed, previous, |id| {
        if subject.records_created {
            IdMap::open_rw(&subject.map)?.record_created(&[CreatedRow {
                name: *id,
                kind: ObjectKind::Tag,
                reason: CREATED_REASON.into(),
                stands_for: None,
            }])?;
        }
        Ok(())
    })?;
    Ok(Attested {
        tag: signed.id,
        previous,
        unchanged: false,
        statement,
    })
}

/// What the first statement's tag points at: the object `HEAD` names,
/// else the first ref's (by name).
fn anchor(refs: &SourceRefs) -> Option<ObjectId> {
    let effective = refs.effective_refs();
    let value = |name: &str| {
        effective
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, target)| target.clone())
    };
    let mut head = Some(refs.head.clone());
    // A symbolic ref names a ref, which may name another.
    for _ in 0..5 {
        match head {
            Some(RefTarget::Direct(id)) if !id.is_null() => return Some(id),
            Some(RefTarget::Symbolic(name)) => head = value(&name),
            _ => break,
        }
    }
    effective
        .iter()
        .filter(|(name, _)| name != ATTESTATION)
        .find_map(|(_, target)| target.id().filter(|id| !id.is_null()))
}

/// The lock of runs that write the repository.
fn take_lock(subject: &Subject) -> Result<fs::File, AttestError> {
    if let Some(dir) = subject.lock.parent() {
        fs::create_dir_all(dir).map_err(|e| AttestError::io(dir, e))?;
    }
    crate::flock::try_lock(&subject.lock)?.ok_or_else(|| AttestError::Locked {
        repo: subject.git_dir.clone(),
        lock: subject.lock.clone(),
    })
}
