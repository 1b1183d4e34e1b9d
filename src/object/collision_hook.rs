//! Test-only: make the object hasher see a real collision.
//!
//! The public SHA-1 collisions (SHAttered, SHA-mbles) collide as raw byte
//! streams; framed as git objects (`"blob <len>\0"` first) they no longer
//! trigger the detector, and forging a colliding git object is out of reach
//! for a test. So a test *arms* the hook with a marker body and a colliding
//! file: when [`super::sha1_object_id`] is asked to name an object whose
//! body is the marker, it feeds the colliding file's raw bytes to the very
//! same sha1dc hasher instead, and the real detector result flows through
//! the pipeline. Only compiled for the crate's unit tests.

use std::sync::Mutex;

/// (marker body, raw bytes to hash in its place).
static ARMED: Mutex<Vec<(Vec<u8>, Vec<u8>)>> = Mutex::new(Vec::new());

/// From now on, an object whose body is `marker` is hashed as `raw`.
pub fn arm(marker: &[u8], raw: Vec<u8>) {
    ARMED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((marker.to_vec(), raw));
}

/// The raw bytes to hash in place of `body`, when a test armed it.
pub(super) fn substitute(body: &[u8]) -> Option<Vec<u8>> {
    ARMED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .find(|(marker, _)| marker == body)
        .map(|(_, raw)| raw.clone())
}
