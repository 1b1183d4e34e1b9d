//! git-rehash's own refs, `refs/rehash/`: `refs/rehash/attestation` names
//! the newest signed statement of the conversion that made a repository
//! (docs/verify.md), `refs/rehash/source-attestation` the statement of the
//! conversion that made its SOURCE, when SOURCE was itself converted.
//!
//! They belong to the repository they are in. A conversion gives DEST
//! SOURCE's statement as `refs/rehash/source-attestation` (the tag object
//! is converted like every other object) and leaves SOURCE's other
//! `refs/rehash/` refs behind: SOURCE's link to its own source is in the
//! statement it points at. DEST's own statement is kept across later runs.

use std::borrow::Cow;
use std::path::Path;

use super::read::read_source_refs;
use super::snapshot::SourceRefs;
use super::{RefTarget, RefsError};
use crate::hash::{HashKind, ObjectId};

/// The namespace of git-rehash's own refs.
pub const REHASH_PREFIX: &str = "refs/rehash/";

/// The newest signed statement of the conversion that made the repository.
pub const ATTESTATION: &str = "refs/rehash/attestation";

/// SOURCE's own statement, in a repository converted from it.
pub const SOURCE_ATTESTATION: &str = "refs/rehash/source-attestation";

/// The name a conversion gives SOURCE's ref `name` in DEST; `None` when
/// it is not carried over.
pub fn converted_name(name: &str) -> Option<Cow<'_, str>> {
    if name == ATTESTATION {
        Some(Cow::Borrowed(SOURCE_ATTESTATION))
    } else if name.starts_with(REHASH_PREFIX) {
        None
    } else {
        Some(Cow::Borrowed(name))
    }
}

impl SourceRefs {
    /// The snapshot as a conversion carries it into DEST: `refs/rehash/`
    /// renamed or left out by [`converted_name`], in refs and reflogs
    /// alike. Only names under `refs/rehash/` change, and both names of
    /// the one renamed ref sort between the same neighbours, so
    /// `packed-refs` stays sorted.
    pub fn as_converted(&self) -> SourceRefs {
        let mut refs = self.clone();
        let keep = |name: &mut String| match converted_name(name) {
            Some(new) => {
                let new = new.into_owned();
                *name = new;
                true
            }
            None => false,
        };
        refs.loose.retain_mut(|r| keep(&mut r.name));
        if let Some(packed) = &mut refs.packed {
            packed.entries.retain_mut(|r| keep(&mut r.name));
        }
        refs.reflogs.retain_mut(|log| keep(&mut log.name));
        refs
    }
}

/// The value of `refs/rehash/attestation` in the repository at `git_dir`
/// (ids of kind `hash`); `None` when it has none, or is no repository yet
/// (no `HEAD`).
pub fn attestation_of(git_dir: &Path, hash: HashKind) -> Result<Option<ObjectId>, RefsError> {
    if !git_dir.join("HEAD").exists() {
        return Ok(None);
    }
    let refs = read_source_refs(git_dir, hash)?;
    Ok(ref_value(&refs, ATTESTATION))
}

/// The object the ref `name` of `refs` names directly, if any.
pub fn ref_value(refs: &SourceRefs, name: &str) -> Option<ObjectId> {
    refs.effective_refs()
        .into_iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, target)| match target {
            RefTarget::Direct(id) => Some(id),
            RefTarget::Symbolic(_) => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refs::{LooseRef, PackedRef, PackedRefs, RefStorage, Reflog};

    fn id(n: u8) -> ObjectId {
        ObjectId::Sha1([n; 20])
    }

    #[test]
    fn source_statement_is_renamed_and_other_rehash_refs_stay_behind() {
        let packed = |name: &str, n| PackedRef {
            name: name.into(),
            id: id(n),
            peeled: None,
        };
        let refs = SourceRefs {
            hash: HashKind::Sha1,
            storage: RefStorage::Files,
            head: RefTarget::Symbolic("refs/heads/main".into()),
            loose: vec![LooseRef {
                name: SOURCE_ATTESTATION.into(),
                target: RefTarget::Direct(id(4)),
            }],
            packed: Some(PackedRefs {
                header: None,
                entries: vec![
                    packed("refs/heads/main", 1),
                    packed(ATTESTATION, 2),
                    packed("refs/rehash/other", 3),
                    packed("refs/tags/v1", 5),
                ],
            }),
            pseudo: Vec::new(),
            reflogs: vec![Reflog {
                name: ATTESTATION.into(),
                entries: Vec::new(),
            }],
        };
        let converted = refs.as_converted();
        let names: Vec<(String, RefTarget)> = converted.effective_refs();
        assert_eq!(
            names,
            vec![
                ("refs/heads/main".to_string(), RefTarget::Direct(id(1))),
                (SOURCE_ATTESTATION.to_string(), RefTarget::Direct(id(2))),
                ("refs/tags/v1".to_string(), RefTarget::Direct(id(5))),
            ]
        );
        assert_eq!(converted.reflogs[0].name, SOURCE_ATTESTATION);
        assert_eq!(ref_value(&refs, ATTESTATION), Some(id(2)));
    }
}
