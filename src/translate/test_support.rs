//! Test helpers: fake ids, a bijective SHA-1 <-> SHA-256 map, and
//! shorthands that translate text bodies in either direction.

use std::collections::HashMap;

use super::error::TranslateError;
use super::{TranslateNotes, TranslateOptions, translate_object};
use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;

/// A SHA-1 id made of byte `n`.
pub fn id1(n: u8) -> ObjectId {
    ObjectId::Sha1([n; 20])
}

/// The SHA-256 partner of [`id1`]`(n)` in [`pairs`].
pub fn id2(n: u8) -> ObjectId {
    ObjectId::Sha256([n; 32])
}

/// Lowercase hex of an id, for building bodies.
pub fn hex(id: ObjectId) -> String {
    id.to_hex()
}

/// A mapper knowing `id1(n) <-> id2(n)` for n in 1..=9 and 0xAB, both ways.
pub fn pairs() -> impl Fn(&ObjectId) -> Option<ObjectId> {
    let mut m = HashMap::new();
    for n in (1..=9).chain([0xAB]) {
        m.insert(id1(n), id2(n));
        m.insert(id2(n), id1(n));
    }
    move |id: &ObjectId| m.get(id).copied()
}

/// Translates with [`pairs`] into a dirty buffer (it must be cleared).
pub fn translate(
    kind: ObjectKind,
    body: &[u8],
    from: HashKind,
    strict_headers: bool,
) -> Result<(Vec<u8>, TranslateNotes), TranslateError> {
    let opts = TranslateOptions {
        strict_headers,
        ..TranslateOptions::default()
    };
    translate_with(kind, body, from, opts)
}

/// [`translate`] with any options.
pub fn translate_with(
    kind: ObjectKind,
    body: &[u8],
    from: HashKind,
    opts: TranslateOptions,
) -> Result<(Vec<u8>, TranslateNotes), TranslateError> {
    let mut out = b"junk".to_vec();
    let notes = translate_object(kind, body, from, from.other(), &pairs(), opts, &mut out)?;
    Ok((out, notes))
}

/// SHA-1 -> SHA-256 of a text body that must translate.
pub fn fwd(kind: ObjectKind, body: &str) -> String {
    text(translate(kind, body.as_bytes(), HashKind::Sha1, false))
}

/// SHA-256 -> SHA-1 of a text body that must translate.
pub fn back(kind: ObjectKind, body: &str) -> String {
    text(translate(kind, body.as_bytes(), HashKind::Sha256, false))
}

/// The refusal for a SHA-1 body.
pub fn refusal(kind: ObjectKind, body: &str, strict_headers: bool) -> TranslateError {
    match translate(kind, body.as_bytes(), HashKind::Sha1, strict_headers) {
        Ok((out, _)) => panic!("{body:?} translated to {:?}", String::from_utf8_lossy(&out)),
        Err(e) => e,
    }
}

fn text(r: Result<(Vec<u8>, TranslateNotes), TranslateError>) -> String {
    let (out, _) = r.unwrap_or_else(|e| panic!("refused: {e}"));
    String::from_utf8(out).expect("tests use text bodies")
}
