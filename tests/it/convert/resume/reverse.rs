//! A SHA-256 -> SHA-1 conversion killed at checkpointable steps, then run
//! again, ends exactly like one that was never interrupted: the same
//! machinery as the forward direction, in the other.

use super::{assert_sound, convert_cmd, convert_killed_at, make_source_in, reference};
use crate::support::rehash::run_ok;
use crate::support::scratch::scratch_dir;

#[test]
fn a_reverse_run_killed_then_resumed_equals_an_uninterrupted_one() {
    let source = make_source_in("reverse-kill", "sha256");
    let expected = reference(&source, "reverse-kill-ref");
    for spec in [
        "start:1",
        "scan-batch:2",
        "object:1",
        "object:23",
        "pack-renamed:2",
        "in-commit:3",
        "committed:2",
        "refs:1",
        "publish:1",
    ] {
        let dest = scratch_dir("reverse-kill-run").join("dest.git");
        convert_killed_at(&source, &dest, spec);
        assert!(
            !dest.join("config").exists() || spec == "publish:1",
            "{spec}: DEST looks complete before it is"
        );
        run_ok(&mut convert_cmd(&source, &dest));
        assert_sound(&dest, &expected, &format!("reverse, killed at {spec}"));
    }
}
