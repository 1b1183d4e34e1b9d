//! The tools the tests drive are installed and work.

use crate::support::git::git;

#[test]
fn tools_are_available() {
    for (tool, arg) in [
        ("git", "--version"),
        ("gpg", "--version"),
        ("python3", "--version"),
    ] {
        let ok = std::process::Command::new(tool)
            .arg(arg)
            .output()
            .map(|o| o.status.success());
        assert!(
            matches!(ok, Ok(true)),
            "{tool} {arg} does not work (CI: install git, gnupg, python3)"
        );
    }
    let version = git(std::path::Path::new("."), &["--version"]);
    assert!(version.starts_with("git version 2."), "{version}");
}
