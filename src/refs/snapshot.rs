//! The snapshot of a repository's refs that the rest of git-rehash reads:
//! [`SourceRefs`] (`HEAD`, loose refs, `packed-refs`, pseudo-refs and
//! reflogs, from either backend) and the refs as git resolves them.

use std::collections::BTreeMap;

use super::RefTarget;
use super::packed::PackedRefs;
use super::pseudo::PseudoRef;
use super::reflog::Reflog;
use super::storage::RefStorage;
use crate::hash::{HashKind, ObjectId};

/// A loose ref: one file under `refs/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LooseRef {
    /// The full name, e.g. `refs/heads/main`.
    pub name: String,
    pub target: RefTarget,
}

/// Everything in the source's ref store that names objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceRefs {
    /// The hash kind of every id in the snapshot.
    pub hash: HashKind,
    /// The backend the refs were read from (a reftable stack is presented
    /// as `packed-refs` plus loose symbolic refs).
    pub storage: RefStorage,
    pub head: RefTarget,
    /// Sorted by name (byte order, as git sorts refs).
    pub loose: Vec<LooseRef>,
    /// `None` when the repository has no `packed-refs` file.
    pub packed: Option<PackedRefs>,
    /// Present pseudo-refs, in [`PSEUDO_REFS`](super::PSEUDO_REFS) order.
    pub pseudo: Vec<PseudoRef>,
    /// `logs/HEAD` first, then `logs/refs/**` sorted by name.
    pub reflogs: Vec<Reflog>,
}

/// A ref as git resolves it, with the peeled value `packed-refs` gives it.
pub type EffectiveRef = (String, RefTarget, Option<ObjectId>);

impl SourceRefs {
    /// The refs as git resolves them: a loose ref hides a packed ref of the
    /// same name (git deletes from `packed-refs` lazily). Sorted by name.
    pub fn effective_refs(&self) -> Vec<(String, RefTarget)> {
        self.effective_refs_peeled()
            .into_iter()
            .map(|(name, target, _)| (name, target))
            .collect()
    }

    /// [`SourceRefs::effective_refs`] with their peeled values: those of
    /// the `packed-refs` entries no loose ref hides (git ignores the peeled
    /// line of a hidden entry).
    pub fn effective_refs_peeled(&self) -> Vec<EffectiveRef> {
        let mut refs: BTreeMap<&str, (RefTarget, Option<ObjectId>)> = BTreeMap::new();
        for entry in self.packed.iter().flat_map(|p| &p.entries) {
            refs.insert(&entry.name, (RefTarget::Direct(entry.id), entry.peeled));
        }
        for entry in &self.loose {
            refs.insert(&entry.name, (entry.target.clone(), None));
        }
        refs.into_iter()
            .map(|(name, (target, peeled))| (name.to_string(), target, peeled))
            .collect()
    }

    /// The values of `HEAD`, branches and tags (loose and packed): the
    /// commits clients ask for, which a bitmap covers first.
    pub fn tip_ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        let wanted = |name: &str| name.starts_with("refs/heads/") || name.starts_with("refs/tags/");
        let packed = self.packed.iter().flat_map(|p| &p.entries);
        self.head
            .id()
            .into_iter()
            .chain(
                self.loose
                    .iter()
                    .filter(move |r| wanted(&r.name))
                    .filter_map(|r| r.target.id()),
            )
            .chain(packed.filter(move |r| wanted(&r.name)).map(|r| r.id))
            .filter(|id| !id.is_null())
    }

    /// Every id the snapshot names: `HEAD`, loose and packed refs (shadowed
    /// ones included, since they are written too), peeled lines, pseudo-refs
    /// and reflogs. The all-zero id is skipped: it means "no object". Ids may
    /// repeat.
    pub fn all_ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        let packed = self.packed.iter().flat_map(|p| &p.entries);
        self.head
            .id()
            .into_iter()
            .chain(self.loose.iter().filter_map(|r| r.target.id()))
            .chain(packed.flat_map(|r| std::iter::once(r.id).chain(r.peeled)))
            .chain(self.pseudo.iter().flat_map(|p| p.ids()))
            .chain(
                self.reflogs
                    .iter()
                    .flat_map(|log| &log.entries)
                    .flat_map(|e| [e.old, e.new]),
            )
            .filter(|id| !id.is_null())
    }
}
