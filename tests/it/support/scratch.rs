//! Scratch space: one directory per test process under cargo's
//! `CARGO_TARGET_TMPDIR`, kept after the run so a failure can be looked at.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// `target/tmp/rehash-tests/<pid>`. The directories of test processes that
/// no longer run are removed the first time this is called, so old runs do
/// not pile up.
pub fn scratch_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rehash-tests");
        fs::create_dir_all(&base).expect("create target/tmp/rehash-tests");
        if Path::new("/proc/self").exists() {
            for entry in fs::read_dir(&base).into_iter().flatten().flatten() {
                let name = entry.file_name();
                let alive = name
                    .to_str()
                    .and_then(|s| s.parse::<u32>().ok())
                    .is_some_and(|pid| {
                        pid == std::process::id()
                            || Path::new("/proc").join(pid.to_string()).exists()
                    });
                if !alive {
                    let _ = fs::remove_dir_all(entry.path());
                }
            }
        }
        let root = base.join(std::process::id().to_string());
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("home")).expect("create scratch root");
        root
    })
}

/// A fresh, empty directory inside [`scratch_root`] (kept until the next run).
/// Prefer `tempfile::tempdir()` when the directory may disappear with the test.
pub fn scratch_dir(label: &str) -> PathBuf {
    static N: Mutex<u32> = Mutex::new(0);
    let n = {
        let mut n = N.lock().unwrap();
        *n += 1;
        *n
    };
    let dir = scratch_root().join(format!("{label}-{n}"));
    fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}
