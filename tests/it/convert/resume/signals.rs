//! Real signals: SIGKILL at pseudo-random times, and Ctrl-C (SIGINT),
//! which stops at a checkpoint with exit status 130.

use std::process::Command;

use super::{
    assert_identical_artifacts, assert_sound, convert_cmd, make_source, reference_with_artifacts,
    source_reference_and_dest,
};
use crate::support::rehash::run_ok;
use crate::support::scratch::scratch_dir;

#[test]
fn real_sigkill_at_pseudo_random_times() {
    let source = make_source("sigkill");
    let (expected, artifacts) = reference_with_artifacts(&source, "sigkill-ref");
    let dest = scratch_dir("sigkill-run").join("dest.git");
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut kills = 0;
    loop {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let delay = std::time::Duration::from_millis(5 + (seed >> 33) % 60);
        let mut child = convert_cmd(&source, &dest)
            .env("GIT_REHASH_TEST_PAUSE_MS", "3")
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        let status = child.wait().unwrap();
        if status.success() {
            break;
        }
        kills += 1;
        if kills >= 25 {
            // Enough interruptions: let it finish.
            run_ok(&mut convert_cmd(&source, &dest));
            break;
        }
    }
    assert_sound(&dest, &expected, "after SIGKILLs");
    assert_identical_artifacts(&dest, &artifacts, "after SIGKILLs");
}

#[test]
fn ctrl_c_stops_at_a_checkpoint_and_exits_130() {
    let (source, expected, dest) = source_reference_and_dest("sigint");
    let child = convert_cmd(&source, &dest)
        .env("GIT_REHASH_TEST_PAUSE_MS", "100")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("Run the same command again to resume"),
        "{stderr}"
    );
    assert!(!dest.join("config").exists());
    run_ok(&mut convert_cmd(&source, &dest));
    assert_sound(&dest, &expected, "after Ctrl-C");
}
