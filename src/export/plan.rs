//! What an export writes, in what order, and every refusal that can be
//! known before anything is written.
//!
//! Every object of DEST is one of:
//! - named: DEST's map records its SHA-1 (it came from SOURCE, or an
//!   earlier export named it). It is written when MIRROR lacks it;
//! - made in DEST since the conversion (no pair yet): it gets its SHA-1
//!   name here, by translation, and is written unless MIRROR has it;
//! - created by `--rekey-notes` or `git-rehash attest` (a signed
//!   statement): no SHA-1 exists; it is left out.
//!
//! Names can only be worked out in dependency order, as `convert` does
//! the other way: blobs first (no references), then trees bottom-up,
//! commits after their trees, parents and mergetags, tags after their
//! targets, in waves (each wave references only earlier ones). Named
//! objects have no such wait and go in the first wave. The references of
//! every object made in DEST are checked first: one DEST does not have,
//! a gitlink no map names, or an object `--rekey-notes` created, stops the
//! export before anything is written.

use std::collections::HashMap;

use rayon::prelude::*;

use super::dest_objects::{DestObjects, Location};
use super::error::{CorruptDest, ExportError, ExportRefusal, MissingObject, UnmappedGitlink};
use super::mirror_objects::ObjectNames;
use super::sha1_names::Names;
use crate::hash::{HashKind, ObjectId};
use crate::object::{ObjectKind, ReferenceRole, for_each_reference, tree_entries};
use crate::pack::DeltaCache;
use crate::progress::Progress;

/// What to do with one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Named already, and MIRROR lacks it: write it.
    Write,
    /// Named already, and a segment of an interrupted export holds it:
    /// nothing to write, but it keeps its place in the pack's order.
    InSegment,
    /// Made in DEST: work out its SHA-1 name and record the pair, then
    /// write it unless MIRROR has it.
    Name,
}

/// One object of DEST the export handles.
#[derive(Clone, Copy, Debug)]
pub struct Item {
    pub at: Location,
    pub kind: ObjectKind,
    pub step: Step,
}

/// The export's work, in order.
#[derive(Debug, Default)]
pub struct Plan {
    /// Blobs, in DEST's storage order (a delta's base before it).
    pub blobs: Vec<Item>,
    /// Trees, commits and tags: each wave references only objects of
    /// earlier waves (or named ones); within a wave, trees, then commits,
    /// then tags, each in DEST's storage order.
    pub waves: Vec<Vec<Item>>,
    /// Objects `--rekey-notes` created in DEST: left out.
    pub created_skipped: u64,
    /// The gitlink targets of the trees made in DEST, with their SHA-1.
    pub gitlinks: Vec<UsedGitlink>,
}

/// A gitlink target (a submodule commit) a tree made in DEST pins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct UsedGitlink {
    pub target: ObjectId,
    pub sha1: ObjectId,
    /// A placeholder name (`--unmapped-gitlinks=placeholder`).
    pub surrogate: bool,
}

impl Plan {
    /// Every item, in the order they are written.
    pub fn items(&self) -> impl Iterator<Item = &Item> + '_ {
        self.blobs.iter().chain(self.waves.iter().flatten())
    }
}

/// What the plan reads.
pub struct PlanInputs<'a> {
    pub dest: &'a DestObjects,
    /// MIRROR's packs and loose objects.
    pub mirror: &'a ObjectNames,
    /// The segments interrupted exports left.
    pub segments: &'a ObjectNames,
    /// `--unmapped-gitlinks=placeholder`.
    pub placeholder: bool,
    pub progress: &'a dyn Progress,
}

/// Plans the export; `names` gains the surrogates of gitlinks no map
/// knows when `placeholder` allows them.
pub fn plan(inputs: &PlanInputs<'_>, names: &mut Names) -> Result<Plan, ExportError> {
    let dest = inputs.dest;
    inputs.progress.start("listing objects", None);
    let locations: Vec<Location> = dest.locations().collect();
    let names_ro = &*names;
    let classified: Vec<Result<Class, ExportError>> = locations
        .par_iter()
        .map(|&at| classify(inputs, names_ro, at))
        .collect();
    let mut items = Vec::new();
    let mut created_skipped = 0;
    for class in classified {
        match class? {
            Class::Item(item) => items.push(item),
            Class::Created => created_skipped += 1,
            Class::Nothing => {}
        }
    }
    drop(locations);
    // An object stored twice (in two packs, or packed and loose) once.
    items.par_sort_unstable_by_key(|i| dest.id(i.at));
    items.dedup_by_key(|i| dest.id(i.at));
    inputs.progress.finish();

    let new: Vec<u32> = (0..items.len() as u32)
        .filter(|&i| items[i as usize].step == Step::Name)
        .collect();
    inputs
        .progress
        .start("reading new objects", Some(new.len() as u64));
    let by_id: HashMap<ObjectId, u32> = new
        .iter()
        .map(|&i| (dest.id(items[i as usize].at), i))
        .collect();
    let references: Vec<Result<References, ExportError>> = new
        .par_iter()
        .map_init(
            || (DeltaCache::new(16 << 20), Vec::new()),
            |(cache, body), &i| {
                let item = &items[i as usize];
                let found = references(dest, item, names_ro, &by_id, cache, body);
                inputs.progress.advance(1);
                found
            },
        )
        .collect();
    inputs.progress.finish();
    let mut edges: HashMap<u32, Vec<u32>> = HashMap::new();
    let (mut missing, mut unmapped, mut gitlinks) = (Vec::new(), Vec::new(), Vec::new());
    for (&i, found) in new.iter().zip(references) {
        let found = found?;
        if let Some((created, id, kind)) = found.on_created {
            return Err(ExportRefusal::OnCreated { id, kind, created }.into());
        }
        missing.extend(found.missing);
        unmapped.extend(found.unmapped);
        gitlinks.extend(found.gitlinks);
        if !found.waits_for.is_empty() {
            edges.insert(i, found.waits_for);
        }
    }
    if !missing.is_empty() {
        return Err(ExportRefusal::MissingObjects(missing).into());
    }
    if inputs.placeholder {
        for gitlink in &unmapped {
            gitlinks.push(UsedGitlink {
                target: gitlink.target,
                sha1: names.add_surrogate(&gitlink.target),
                surrogate: true,
            });
        }
    } else if !unmapped.is_empty() {
        return Err(ExportRefusal::UnmappedGitlinks(unmapped).into());
    }

    let storage = |i: &Item| dest.storage_key(i.at);
    let (mut blobs, others): (Vec<u32>, Vec<u32>) =
        (0..items.len() as u32).partition(|&i| items[i as usize].kind == ObjectKind::Blob);
    blobs.sort_by_key(|&i| storage(&items[i as usize]));
    let waves = waves(&others, &edges)?
        .into_iter()
        .map(|wave| {
            let mut wave: Vec<Item> = wave.into_iter().map(|i| items[i as usize]).collect();
            wave.sort_by_key(|i| (kind_order(i.kind), storage(i)));
            wave
        })
        .collect();
    gitlinks.sort_unstable();
    gitlinks.dedup();
    Ok(Plan {
        blobs: blobs.into_iter().map(|i| items[i as usize]).collect(),
        waves,
        created_skipped,
        gitlinks,
    })
}

/// What the export does with one stored object.
enum Class {
    Item(Item),
    /// MIRROR has it.
    Nothing,
    /// `--rekey-notes` created it: it has no SHA-1.
    Created,
}

fn classify(inputs: &PlanInputs<'_>, names: &Names, at: Location) -> Result<Class, ExportError> {
    let id = inputs.dest.id(at);
    if names.created(&id).is_some() {
        return Ok(Class::Created);
    }
    let recorded = well_known(&id).or_else(|| names.recorded(&id));
    let Some((sha1, kind)) = recorded else {
        let kind = inputs.dest.kind(at)?;
        return Ok(Class::Item(Item {
            at,
            kind,
            step: Step::Name,
        }));
    };
    let step = if inputs.mirror.has(&sha1) {
        return Ok(Class::Nothing);
    } else if inputs.segments.has(&sha1) {
        Step::InSegment
    } else {
        Step::Write
    };
    Ok(Class::Item(Item { at, kind, step }))
}

/// The SHA-1 name of the DEST object `id`: recorded in DEST's map, or
/// worked out by this run, or git's own for the empty tree and blob.
pub fn named_sha1(names: &Names, id: &ObjectId) -> Option<ObjectId> {
    well_known(id)
        .map(|(sha1, _)| sha1)
        .or_else(|| names.sha1_of(id))
}

/// The pairs git knows without storing them (translate/ answers them the
/// same way); a DEST that stores one anyway has no map row for it.
fn well_known(id: &ObjectId) -> Option<(ObjectId, ObjectKind)> {
    let (sha1, sha256) = (HashKind::Sha1, HashKind::Sha256);
    if *id == sha256.empty_tree() {
        Some((sha1.empty_tree(), ObjectKind::Tree))
    } else if *id == sha256.empty_blob() {
        Some((sha1.empty_blob(), ObjectKind::Blob))
    } else {
        None
    }
}

/// What the references of one object made in DEST come to.
#[derive(Default)]
struct References {
    /// Other objects made in DEST (trees, commits, tags) it must wait for.
    waits_for: Vec<u32>,
    missing: Vec<MissingObject>,
    unmapped: Vec<UnmappedGitlink>,
    /// Gitlink targets named through gitlink pairs.
    gitlinks: Vec<UsedGitlink>,
    /// A reference to an object `--rekey-notes` created: (it, this object, its kind).
    on_created: Option<(ObjectId, ObjectId, ObjectKind)>,
}

fn references(
    dest: &DestObjects,
    item: &Item,
    names: &Names,
    new: &HashMap<ObjectId, u32>,
    cache: &mut DeltaCache,
    body: &mut Vec<u8>,
) -> Result<References, ExportError> {
    let mut found = References::default();
    if item.kind == ObjectKind::Blob {
        return Ok(found);
    }
    let this = dest.id(item.at);
    dest.read(item.at, cache, body)?;
    let mut refer = |id: ObjectId, gitlink: Option<&[u8]>| {
        if let Some(&i) = new.get(&id) {
            found.waits_for.push(i);
        } else if well_known_any(&id) || names.recorded(&id).is_some() {
            // An object DEST's map names: nothing to wait for.
        } else if names.created(&id).is_some() {
            found.on_created.get_or_insert((id, this, item.kind));
        } else if let Some(path) = gitlink {
            match names.sha1_of(&id) {
                Some(sha1) => found.gitlinks.push(UsedGitlink {
                    target: id,
                    sha1,
                    surrogate: false,
                }),
                None => found.unmapped.push(UnmappedGitlink {
                    target: id,
                    path: String::from_utf8_lossy(path).into_owned(),
                    tree: this,
                }),
            }
        } else if names.sha1_of(&id).is_none() {
            found.missing.push(MissingObject {
                id,
                referenced_by: this,
            });
        }
    };
    let malformed = |reason: String| CorruptDest::Malformed {
        id: this,
        kind: item.kind,
        file: dest.file(item.at),
        reason,
    };
    if item.kind == ObjectKind::Tree {
        for entry in tree_entries(body, HashKind::Sha256) {
            let entry = entry.map_err(|e| malformed(e.to_string()))?;
            refer(entry.id, entry.is_gitlink().then_some(entry.name));
        }
    } else {
        for_each_reference(item.kind, body, HashKind::Sha256, |id, role| {
            debug_assert!(!matches!(role, ReferenceRole::TreeEntry { .. }));
            refer(id, None);
        })
        .map_err(|e| malformed(e.to_string()))?;
    }
    // Blobs are all written before the first wave.
    found.waits_for.sort_unstable();
    found.waits_for.dedup();
    Ok(found)
}

/// The null id and the empty tree and blob: translated without a pair.
fn well_known_any(id: &ObjectId) -> bool {
    id.is_null() || well_known(id).is_some()
}

/// Kahn's waves over `nodes` (item numbers), `edges[n]` the nodes `n`
/// waits for (blobs among them are ignored: they come first anyway).
fn waves(nodes: &[u32], edges: &HashMap<u32, Vec<u32>>) -> Result<Vec<Vec<u32>>, ExportError> {
    let in_set: std::collections::HashSet<u32> = nodes.iter().copied().collect();
    let mut waiting: HashMap<u32, usize> = HashMap::new();
    let mut dependents: HashMap<u32, Vec<u32>> = HashMap::new();
    for &n in nodes {
        let deps: Vec<u32> = edges
            .get(&n)
            .map(|d| d.iter().copied().filter(|d| in_set.contains(d)).collect())
            .unwrap_or_default();
        if !deps.is_empty() {
            waiting.insert(n, deps.len());
        }
        for d in deps {
            dependents.entry(d).or_default().push(n);
        }
    }
    let mut wave: Vec<u32> = nodes
        .iter()
        .copied()
        .filter(|n| !waiting.contains_key(n))
        .collect();
    let mut out = Vec::new();
    let mut placed = 0;
    while !wave.is_empty() {
        let mut next = Vec::new();
        for n in &wave {
            for &d in dependents.get(n).into_iter().flatten() {
                let left = waiting.get_mut(&d).expect("a dependent waits");
                *left -= 1;
                if *left == 0 {
                    next.push(d);
                }
            }
        }
        placed += wave.len();
        out.push(std::mem::replace(&mut wave, next));
    }
    if placed != nodes.len() {
        // Names are hashes of content: no object can reference itself
        // through others. Only a store that lies about names gets here.
        return Err(CorruptDest::Store {
            reason: format!(
                "{} objects reference each other in a ring",
                nodes.len() - placed
            ),
        }
        .into());
    }
    Ok(out)
}

fn kind_order(kind: ObjectKind) -> u8 {
    match kind {
        ObjectKind::Tree => 0,
        ObjectKind::Commit => 1,
        ObjectKind::Tag => 2,
        ObjectKind::Blob => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waves_put_each_node_after_what_it_waits_for() {
        // 3 waits for 1 and 2, 2 waits for 1, 4 for nothing; 9 is no node.
        let edges = HashMap::from([(3, vec![1, 2]), (2, vec![1, 9])]);
        let got = waves(&[1, 2, 3, 4], &edges).unwrap();
        assert_eq!(got, vec![vec![1, 4], vec![2], vec![3]]);
        assert!(waves(&[], &HashMap::new()).unwrap().is_empty());
    }

    #[test]
    fn a_ring_is_a_corrupt_store() {
        let edges = HashMap::from([(1, vec![2]), (2, vec![1])]);
        assert!(matches!(
            waves(&[1, 2], &edges),
            Err(ExportError::Corrupt(_))
        ));
    }
}
