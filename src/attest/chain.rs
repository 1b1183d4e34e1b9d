//! Reading statements back: the tag `refs/rehash/attestation` names, and
//! the statements before it. Each tag points at the one before (its
//! `object` line, which the statement's `previous` repeats), the first at
//! the commit the repository's `HEAD` named then; so the chain stays
//! reachable, and `git clone --mirror` or `git push` of the one ref
//! carries all of it.

use super::AttestError;
use super::git::Git;
use super::statement::{Statement, strip_signature};
use crate::hash::{HashKind, ObjectId};

/// One statement's tag.
#[derive(Clone, Debug)]
pub struct StatementTag {
    pub id: ObjectId,
    /// The tag's `object` and `type` lines.
    pub object: ObjectId,
    pub object_type: String,
    /// The tag's `tagger` line (identity and time).
    pub tagger: String,
    /// The statement, or why the message is not one.
    pub statement: Result<Statement, String>,
    /// Whether a signature follows the statement.
    pub signed: bool,
}

impl StatementTag {
    /// The tag `id` of the repository `git` runs in.
    pub fn read(git: &Git, format: HashKind, id: &ObjectId) -> Result<Self, AttestError> {
        let hex = id.to_hex();
        let body = git.run(&["cat-file", "tag", &hex])?;
        let bad = |reason: &str| AttestError::BadTag {
            id: hex.clone(),
            reason: reason.to_string(),
        };
        let split = body
            .windows(2)
            .position(|w| w == b"\n\n")
            .ok_or_else(|| bad("it has no message"))?;
        let (headers, message) = (&body[..split], &body[split + 2..]);
        let header = |name: &str| {
            headers
                .split(|&b| b == b'\n')
                .find_map(|line| line.strip_prefix(format!("{name} ").as_bytes()))
                .map(|v| String::from_utf8_lossy(v).into_owned())
        };
        let object = header("object")
            .and_then(|h| ObjectId::from_hex(format, h.as_bytes()))
            .ok_or_else(|| bad("its object line is not an object id"))?;
        Ok(StatementTag {
            id: *id,
            object,
            object_type: header("type").unwrap_or_default(),
            tagger: header("tagger").unwrap_or_default(),
            statement: Statement::from_message(message),
            signed: strip_signature(message).len() < message.len(),
        })
    }

    /// The statement before this one, as this one names it.
    pub fn previous(&self, format: HashKind) -> Option<ObjectId> {
        let previous = self.statement.as_ref().ok()?.previous.as_deref()?;
        ObjectId::from_hex(format, previous.as_bytes())
    }

    /// What is wrong with the link to the statement before, if anything:
    /// `previous` must be the tag's `object`, a tag.
    pub fn link_problem(&self, format: HashKind) -> Option<String> {
        let statement = self.statement.as_ref().ok()?;
        match (&statement.previous, self.previous(format)) {
            (None, _) => None,
            (Some(named), None) => Some(format!(
                "its statement names previous {named}, which is not a {} id",
                format.name()
            )),
            (Some(_), Some(previous)) if previous != self.object || self.object_type != "tag" => {
                Some(format!(
                    "its statement names previous {previous}, but the tag points at {} {}",
                    self.object_type, self.object
                ))
            }
            _ => None,
        }
    }
}

/// The statements from `newest` back to the first (newest first). A tag
/// that cannot be read ends the chain with the error.
pub fn read_chain(
    git: &Git,
    format: HashKind,
    newest: &ObjectId,
) -> Result<Vec<StatementTag>, AttestError> {
    let mut chain = vec![StatementTag::read(git, format, newest)?];
    while let Some(previous) = chain.last().and_then(|tag| tag.previous(format)) {
        if chain.iter().any(|tag| tag.id == previous) {
            break; // a ring cannot be made with hashes; stop all the same
        }
        chain.push(StatementTag::read(git, format, &previous)?);
    }
    Ok(chain)
}
