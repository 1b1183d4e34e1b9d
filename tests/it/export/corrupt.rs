//! A damaged DEST stops the export, naming the object and the file, before
//! MIRROR's refs change: an object whose content is not what its name
//! says, one that cannot be inflated, and a packed blob that would be
//! copied as it is stored but does not match its index's CRC32.

use std::path::Path;

use super::{empty_mirror, export_refused, refs, scene};
use crate::support::git::git;
use crate::support::history::commit_file;
use crate::support::repo_files::{loose_object_path, pack_entries, pack_files};

fn assert_untouched(mirror: &Path) {
    assert_eq!(refs(mirror), "");
    assert!(pack_files(mirror).is_empty());
}

#[test]
fn a_loose_object_that_is_not_what_its_name_says_is_named() {
    let scene = scene("export-corrupt-loose", &[]);
    commit_file(&scene.work, "new.txt", "made in DEST\n", "new");
    let blob = git(&scene.dest, &["rev-parse", "main:new.txt"]);
    let file = loose_object_path(&scene.dest, &blob);
    let mut other = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut other, b"blob 6\0forged").unwrap();
    let forged = other.finish().unwrap();
    let mode = std::fs::metadata(&file).unwrap().permissions();
    std::fs::remove_file(&file).unwrap();
    std::fs::write(&file, &forged[..forged.len() - 1]).unwrap();
    std::fs::set_permissions(&file, mode).unwrap();

    let mirror = empty_mirror(&scene.root);
    let message = export_refused(&scene.dest, &mirror, &[]);
    assert!(
        message.contains(&format!("DEST object {blob}")),
        "{message}"
    );
    assert!(message.contains(file.to_str().unwrap()), "{message}");
    assert_untouched(&mirror);

    // Whole, but of other content.
    std::fs::remove_file(&file).unwrap();
    std::fs::write(&file, &forged).unwrap();
    let message = export_refused(&scene.dest, &mirror, &[]);
    assert!(
        message.contains(&format!("DEST object {blob}")),
        "{message}"
    );
    assert!(
        message.contains("is corrupt: its blob content hashes to"),
        "{message}"
    );
    assert_untouched(&mirror);
}

#[test]
fn a_packed_blob_whose_bytes_do_not_match_its_crc32_is_named() {
    let scene = scene("export-corrupt-pack", &[]);
    let pack = pack_files(&scene.dest).pop().expect("DEST has a pack");
    let entries = pack_entries(&pack, "sha256");
    // A blob stored whole: copied as its compressed bytes after the check.
    let (at, next) = entries
        .windows(2)
        .find(|w| w[0].kind == 3 && w[1].offset - w[0].offset > 40)
        .map(|w| (w[0].clone(), w[1].offset))
        .expect("a whole blob");
    let mut bytes = std::fs::read(&pack).unwrap();
    let middle = ((at.offset + next) / 2) as usize;
    bytes[middle] ^= 0x55;
    let mode = std::fs::metadata(&pack).unwrap().permissions();
    std::fs::remove_file(&pack).unwrap();
    std::fs::write(&pack, &bytes).unwrap();
    std::fs::set_permissions(&pack, mode).unwrap();

    let mirror = empty_mirror(&scene.root);
    let message = export_refused(&scene.dest, &mirror, &[]);
    assert!(
        message.contains(&format!("DEST object {}", at.id)),
        "{message}"
    );
    assert!(message.contains(pack.to_str().unwrap()), "{message}");
    assert!(message.contains("CRC32"), "{message}");
    assert_untouched(&mirror);
}
