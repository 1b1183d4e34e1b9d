//! A SHA-256 -> SHA-1 conversion killed at checkpointable steps, then run
//! again, ends exactly like one that was never interrupted: the same
//! machinery as the forward direction, in the other.

use super::{killed_then_resumed, make_source_in, reference};

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
        killed_then_resumed(&source, &expected, spec, "reverse-kill-run");
    }
}
