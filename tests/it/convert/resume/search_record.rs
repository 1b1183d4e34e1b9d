//! The window search's choices for the blob pass's last chunks are kept in
//! `rehash/search-record`, so that a resumed run makes the chunk it
//! restarts at from them instead of searching it again; a record that
//! does not read back is ignored. Either way the pack is the uninterrupted
//! run's, byte for byte, and a finished run leaves no record behind.

use super::{
    assert_identical_artifacts, assert_sound, convert_cmd, convert_killed_at, make_source,
    reference_with_artifacts,
};
use crate::support::rehash::run_ok;
use crate::support::scratch::scratch_dir;

#[test]
fn a_resumed_run_takes_the_recorded_choices_or_searches_again() {
    let source = make_source("search-record");
    let (expected, artifacts) = reference_with_artifacts(&source, "search-record-ref");
    for damaged in [false, true] {
        let dest = scratch_dir("search-record-run").join("dest.git");
        convert_killed_at(&source, &dest, "object:30");
        let record = dest.join("rehash/search-record");
        let mut bytes = std::fs::read(&record).expect("a kill in the write phase leaves a record");
        if damaged {
            let at = bytes.len() / 2;
            bytes[at] ^= 0x40;
            std::fs::write(&record, &bytes).unwrap();
        }
        run_ok(&mut convert_cmd(&source, &dest));
        let what = format!("resumed with a record (damaged: {damaged})");
        assert_sound(&dest, &expected, &what);
        assert_identical_artifacts(&dest, &artifacts, &what);
        assert!(
            !record.exists(),
            "{what}: a finished run removes the record"
        );
    }
}
