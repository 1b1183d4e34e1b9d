//! Ref checks: every ref, peeled value, detached HEAD and reflog entry of
//! DEST names an object of DEST; with SOURCE, every ref of SOURCE exists in
//! DEST under its translated name with its translated value, and DEST has
//! no other refs. A peeled value DEST holds for a ref SOURCE keeps loose
//! (where git records none) must be the translation of what SOURCE's tag
//! finally names. DEST's own statement (`refs/rehash/attestation`) has no
//! SOURCE counterpart.

use std::collections::BTreeMap;

use super::map_index::MapIndex;
use super::objects_check::Sink;
use super::problem::Problem;
use crate::hash::ObjectId;
use crate::refs::rehash_refs::ATTESTATION;
use crate::refs::{RefTarget, SourceRefs};

const REPLACE_PREFIX: &str = "refs/replace/";

/// Checks DEST's refs on their own. Returns how many values were checked.
pub fn check_dest_refs(dest: &SourceRefs, index: &MapIndex, sink: &Sink) -> u64 {
    let mut checked = 0;
    let mut check = |name: String, id: ObjectId| {
        checked += 1;
        if !id.is_null() && !index.contains(&id) {
            sink.report(Problem::DanglingRef { name, id });
        }
    };
    if let Some(id) = dest.head.id() {
        check("HEAD".into(), id);
    }
    for (name, target) in dest.effective_refs() {
        if let Some(id) = target.id() {
            check(name, id);
        }
    }
    for entry in dest.packed.iter().flat_map(|p| &p.entries) {
        if let Some(peeled) = entry.peeled {
            check(format!("{} (peeled)", entry.name), peeled);
        }
    }
    for log in &dest.reflogs {
        for (n, entry) in log.entries.iter().enumerate() {
            for id in [entry.old, entry.new] {
                check(format!("logs/{} entry {n}", log.name), id);
            }
        }
    }
    checked
}

/// Compares DEST's refs with SOURCE's, translated through the map;
/// `peel` gives the object a SOURCE tag finally names.
pub fn compare_with_source(
    source: &SourceRefs,
    dest: &SourceRefs,
    index: &MapIndex,
    peel: &dyn Fn(&ObjectId) -> Option<ObjectId>,
    sink: &Sink,
) -> u64 {
    let to = index.direction().dest();
    let expected_value = |target: &RefTarget| match target {
        RefTarget::Direct(id) if id.is_null() => to.null_id().to_hex(),
        RefTarget::Direct(id) => index
            .other_name(id)
            .map(|m| m.to_hex())
            .unwrap_or_else(|| format!("(no {to} name for {id})")),
        RefTarget::Symbolic(name) => format!("ref: {name}"),
    };
    let found_value = |target: &RefTarget| match target {
        RefTarget::Direct(id) => id.to_hex(),
        RefTarget::Symbolic(name) => format!("ref: {name}"),
    };
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    found.insert("HEAD".into(), found_value(&dest.head));
    for (name, target, peeled) in dest.effective_refs_peeled() {
        if name == ATTESTATION {
            continue;
        }
        if let Some(peeled) = peeled {
            let value = found_value(&RefTarget::Direct(peeled));
            found.insert(format!("{name} (peeled)"), value);
        }
        found.insert(name, found_value(&target));
    }
    let mut expected: BTreeMap<String, String> = BTreeMap::new();
    expected.insert("HEAD".into(), expected_value(&source.head));
    // Peeled values as git reads them: a packed entry hidden by a loose
    // ref has none (and a reftable DEST keeps none for it). A loose ref
    // has none recorded either; where DEST holds one, SOURCE's tag says
    // what it must be.
    for (name, target, peeled) in source.effective_refs_peeled() {
        let name = dest_name(&name, index);
        let peeled = peeled.or_else(|| match &target {
            RefTarget::Direct(id) if found.contains_key(&format!("{name} (peeled)")) => {
                peel(id).filter(|object| object != id)
            }
            _ => None,
        });
        if let Some(peeled) = peeled {
            let value = expected_value(&RefTarget::Direct(peeled));
            expected.insert(format!("{name} (peeled)"), value);
        }
        expected.insert(name, expected_value(&target));
    }
    for (name, want) in &expected {
        match found.get(name) {
            None => sink.report(Problem::RefMissing {
                name: name.clone(),
                expected: want.clone(),
            }),
            // --rekey-notes: a created commit on top of the translated value.
            Some(got) if got != want && !created_on_top(got, want, index) => {
                sink.report(Problem::RefMismatch {
                    name: name.clone(),
                    expected: want.clone(),
                    found: got.clone(),
                })
            }
            Some(_) => {}
        }
    }
    for (name, got) in &found {
        if !expected.contains_key(name) {
            sink.report(Problem::RefExtra {
                name: name.clone(),
                found: got.clone(),
            });
        }
    }
    expected.len() as u64
}

/// Whether the ref value `got` is a commit the conversion created on top
/// of `want` (both hex, in DEST's hash).
fn created_on_top(got: &str, want: &str, index: &MapIndex) -> bool {
    let parse = |hex: &str| ObjectId::from_hex(index.direction().dest(), hex.as_bytes());
    match (parse(got), parse(want)) {
        (Some(got), Some(want)) => index.stands_on(&got, &want),
        _ => false,
    }
}

/// `refs/replace/<id>` is renamed after the replaced object's name in
/// DEST's hash.
fn dest_name(name: &str, index: &MapIndex) -> String {
    name.strip_prefix(REPLACE_PREFIX)
        .and_then(|hex| ObjectId::from_hex(index.direction().source(), hex.as_bytes()))
        .and_then(|id| index.other_name(&id))
        .map(|id| format!("{REPLACE_PREFIX}{id}"))
        .unwrap_or_else(|| name.to_string())
}
