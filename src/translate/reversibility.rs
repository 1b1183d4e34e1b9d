//! docs/translation.md, "Round trips": SHA-1 -> SHA-256 -> SHA-1 returns the original bytes
//! when the map is bijective and the bodies are "clean"; and the known ways
//! it does not, each checked against git 2.47.3 (git's own reverse
//! conversion gives the same different bytes).

use super::error::TranslateError;
use super::tag::tests::{F_SIG1, HDR, SIG1, obj};
use super::test_support::{back, fwd, hex, id1, id2, pairs, translate};
use super::{TranslateOptions, translate_object, translate_tag_with_unterminated_signature};
use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind::{Blob, Commit, Tag, Tree};

#[test]
fn every_kind_round_trips_through_translate_object() {
    let tree: Vec<u8> = [b"100644 f\0".as_slice(), &[5; 20], b"160000 m\0", &[6; 20]].concat();
    let (tree256, _) = translate(Tree, &tree, HashKind::Sha1, false).unwrap();
    assert_eq!(
        translate(Tree, &tree256, HashKind::Sha256, false)
            .unwrap()
            .0,
        tree
    );
    let commit = format!(
        "tree {}\nparent {}\nauthor A\n\nm\n",
        hex(id1(1)),
        hex(id1(2))
    );
    assert_eq!(back(Commit, &fwd(Commit, &commit)), commit);
    let tag = format!("{}{HDR}\nmsg\n{SIG1}", obj(id1));
    assert_eq!(back(Tag, &fwd(Tag, &tag)), tag);
    // Blobs hold no ids: copied, whatever they contain.
    let blob = format!("tree {}\n", hex(id1(42)));
    assert_eq!(fwd(Blob, &blob), blob);
}

/// Upper-case hex is accepted and written lower case.
#[test]
fn upper_case_hex_does_not_round_trip() {
    let src = format!("tree {}\n\nm\n", hex(id1(0xAB)).to_uppercase());
    let sha256 = fwd(Commit, &src);
    assert_eq!(sha256, format!("tree {}\n\nm\n", hex(id2(0xAB))));
    assert_eq!(back(Commit, &sha256), src.to_lowercase());
}

/// A signature without final LF swallows the empty line; the
/// reverse then sees no message, and the signature comes back with an LF.
#[test]
fn signature_without_final_lf_does_not_round_trip() {
    let sig = SIG1.trim_end_matches('\n');
    let field = F_SIG1.trim_end_matches('\n');
    let sha256 = fwd(Tag, &format!("{}{HDR}\ncrafted\n{sig}", obj(id1)));
    assert_eq!(sha256, format!("{}{HDR}{field}\ncrafted\n", obj(id2)));
    assert_eq!(
        back(Tag, &sha256),
        format!("{}{HDR}crafted\n{SIG1}", obj(id1))
    );
}

/// The translation that restores what a signature without final LF lost
/// gives the original back, in both directions; a tag whose signature
/// field is followed by the header's end has no such other translation.
#[test]
fn a_signature_without_final_lf_is_restored_when_asked() {
    let restored = |body: &str, from: HashKind| {
        let mut out = Vec::new();
        let to = from.other();
        translate_tag_with_unterminated_signature(body.as_bytes(), from, to, &pairs(), &mut out)
            .unwrap()
            .then(|| String::from_utf8(out).unwrap())
    };
    let sig = SIG1.trim_end_matches('\n');
    for (side, from) in [
        (id1 as fn(u8) -> ObjectId, HashKind::Sha1),
        (id2, HashKind::Sha256),
    ] {
        for message in ["crafted\n", "", "two\n\nparagraphs\n"] {
            let original = format!("{}{HDR}\n{message}{sig}", obj(side));
            let (other, _) = translate(Tag, original.as_bytes(), from, false).unwrap();
            let other = String::from_utf8(other).unwrap();
            assert_eq!(
                restored(&other, from.other()),
                Some(original),
                "{message:?}"
            );
        }
        // Signed as git signs, with a final LF: only the plain translation.
        let clean = format!("{}{HDR}\nmsg\n{SIG1}", obj(side));
        let (other, _) = translate(Tag, clean.as_bytes(), from, false).unwrap();
        assert_eq!(
            restored(&String::from_utf8(other).unwrap(), from.other()),
            None
        );
    }
    let unsigned = format!("{}{HDR}\nmsg\n", obj(id2));
    assert_eq!(restored(&unsigned, HashKind::Sha256), None);
}

/// Not a documented exception: only the last signature-looking line counts, so an
/// earlier one in the message becomes the signature of the SHA-256 form.
#[test]
fn second_signature_start_in_message_does_not_round_trip() {
    let quoted = "-----BEGIN PGP SIGNATURE-----\nquoted\n";
    let ssh = "-----BEGIN SSH SIGNATURE-----\nS\n-----END SSH SIGNATURE-----\n";
    let f_ssh = "gpgsig -----BEGIN SSH SIGNATURE-----\n S\n -----END SSH SIGNATURE-----\n";
    let sha256 = fwd(Tag, &format!("{}{HDR}\nmsg\n{quoted}{ssh}", obj(id1)));
    assert_eq!(sha256, format!("{}{HDR}{f_ssh}\nmsg\n{quoted}", obj(id2)));
    let f_quoted = "gpgsig-sha256 -----BEGIN PGP SIGNATURE-----\n quoted\n";
    assert_eq!(
        back(Tag, &sha256),
        format!("{}{HDR}{f_quoted}\nmsg\n{ssh}", obj(id1))
    );
}

#[test]
fn mapper_answering_the_wrong_kind_is_refused() {
    let wrong = |_: &ObjectId| Some(id1(7));
    let mut out = Vec::new();
    let body = format!("tree {}\n", hex(id1(1)));
    let err = translate_object(
        Commit,
        body.as_bytes(),
        HashKind::Sha1,
        HashKind::Sha256,
        &wrong,
        TranslateOptions::default(),
        &mut out,
    )
    .unwrap_err();
    assert!(matches!(err, TranslateError::MappedKindMismatch { .. }));
    // The test map itself is fine in both directions.
    assert_eq!(pairs()(&id2(3)), Some(id1(3)));
}
