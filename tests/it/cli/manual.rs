//! The manual page and the completion scripts `git-rehash generate`
//! prints: `man` renders the page with every subcommand, option and exit
//! status, `git help rehash` and `git rehash --help` find it through
//! MANPATH, and bash loads the completion.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::rehash::{rehash_command, run_ok};
use crate::support::scratch::scratch_dir;

const SUBCOMMANDS: [&str; 7] = [
    "convert",
    "map",
    "translate-text",
    "repack",
    "export-sha1",
    "verify",
    "generate",
];

fn generate(what: &str) -> String {
    let out = run_ok(rehash_command().args(["generate", what]));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// `DIR/man1/git-rehash.1`, as the README says to install it.
fn installed_page() -> PathBuf {
    let dir = scratch_dir("manual");
    std::fs::create_dir_all(dir.join("man1")).unwrap();
    std::fs::write(dir.join("man1/git-rehash.1"), generate("man")).unwrap();
    dir
}

fn has(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The page as `man` renders it for a wide terminal, without a pager.
fn rendered(cmd: &mut Command) -> String {
    let out: Output = cmd
        .env("MANWIDTH", "200")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn man_renders_every_subcommand_option_and_exit_status() {
    let dir = installed_page();
    let page = dir.join("man1/git-rehash.1");
    let text = if has("man") {
        rendered(Command::new("man").arg("-l").arg(&page))
    } else {
        eprintln!("note: man is not installed (.ci/run installs man-db); checking the roff text");
        std::fs::read_to_string(&page).unwrap().replace("\\-", "-")
    };
    for section in [
        "NAME",
        "SYNOPSIS",
        "COMMANDS",
        "EXIT STATUS",
        "FILES",
        "EXAMPLES",
    ] {
        assert!(text.contains(section), "no {section} section:\n{text}");
    }
    for sub in SUBCOMMANDS {
        assert!(
            text.contains(&format!("git-rehash {sub}")),
            "{sub} is missing:\n{text}"
        );
        // Every option `--help` lists is in the page: both come from one
        // definition, so they cannot drift apart.
        let help = run_ok(rehash_command().args([sub, "--help"]));
        for option in long_options(&String::from_utf8_lossy(&help.stdout)) {
            assert!(text.contains(&option), "{sub} {option} is missing");
        }
    }
    for status in ["0", "1", "2", "3", "130"] {
        let line = text
            .lines()
            .any(|l| l.trim_start().starts_with(&format!("{status} ")));
        assert!(line, "exit status {status} is missing:\n{text}");
    }
}

/// The `--name` options a help text lists.
fn long_options(help: &str) -> Vec<String> {
    help.split(|c: char| c.is_whitespace() || c == ',' || c == '=' || c == '[' || c == ']')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                .to_string()
        })
        .filter(|w| w.len() > 2)
        .collect()
}

#[test]
fn git_help_rehash_shows_the_page_from_manpath() {
    if !has("man") {
        eprintln!("skipped: man is not installed (.ci/run installs man-db)");
        return;
    }
    let dir = installed_page();
    let binary = Path::new(env!("CARGO_BIN_EXE_git-rehash"));
    let path = std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap();
    // git names the page of a command it finds on PATH: git-rehash.
    for args in [&["help", "rehash"][..], &["rehash", "--help"][..]] {
        let mut git = Command::new("git");
        crate::support::git::isolate(&mut git);
        git.args(args).env("PATH", &path).env("MANPATH", &dir);
        let text = rendered(&mut git);
        assert!(text.contains("GIT-REHASH(1)"), "{args:?}:\n{text}");
        assert!(text.contains("git-rehash export-sha1"), "{args:?}:\n{text}");
    }
}

#[test]
fn completion_scripts_load() {
    let bash = generate("complete-bash");
    let dir = scratch_dir("completion");
    let script = dir.join("git-rehash.bash");
    std::fs::write(&script, &bash).unwrap();
    let out = run_ok(Command::new("bash").arg("-c").arg(format!(
        "source '{}' && complete -p git-rehash",
        script.display()
    )));
    let registered = String::from_utf8_lossy(&out.stdout);
    assert!(registered.contains("git-rehash"), "{registered}");
    for sub in SUBCOMMANDS {
        assert!(bash.contains(sub), "bash completion lacks {sub}");
    }
    // What a <TAB> after these words offers, directly and through git.
    let direct =
        "_git__rehash git-rehash \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"";
    for (line, offered) in [
        ("git-rehash con", "convert"),
        ("git-rehash convert --sub", "--submodule-map"),
        ("git-rehash generate complete-f", "complete-fish"),
    ] {
        let answer = complete_bash(&script, None, direct, line);
        assert!(answer.contains(offered), "{line:?} offers {answer:?}");
    }
    let git_completion = Path::new("/usr/share/bash-completion/completions/git");
    if git_completion.is_file() {
        for (line, offered) in [
            ("git rehash con", "convert"),
            ("git rehash convert --sub", "--submodule-map"),
            ("git -C /tmp rehash ver", "verify"),
        ] {
            let answer = complete_bash(&script, Some(git_completion), "__git_wrap__git_main", line);
            assert!(answer.contains(offered), "{line:?} offers {answer:?}");
        }
    } else {
        eprintln!("note: git's bash completion is not installed; `git rehash <TAB>` not checked");
    }
    let zsh = generate("complete-zsh");
    assert!(zsh.starts_with("#compdef git-rehash"), "{zsh}");
    let fish = generate("complete-fish");
    assert!(fish.contains("complete -c git-rehash"), "{fish}");
    for (shell, text) in [("zsh", &zsh), ("fish", &fish)] {
        if has(shell) {
            let file = dir.join(format!("git-rehash.{shell}"));
            std::fs::write(&file, text).unwrap();
            run_ok(Command::new(shell).arg("-n").arg(&file));
        }
    }
}

/// What bash completes after `line` (ending with the word being
/// completed), with `script` loaded after `first` and `call` run.
fn complete_bash(script: &Path, first: Option<&Path>, call: &str, line: &str) -> String {
    let source_first = first.map_or(String::new(), |f| format!("source '{}'; ", f.display()));
    let program = format!(
        "{source_first}source '{}'; read -ra COMP_WORDS <<< \"$1\"; \
         COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMP_LINE=\"$1\"; COMP_POINT=${{#COMP_LINE}}; \
         {call}; echo \"${{COMPREPLY[*]}}\"",
        script.display()
    );
    let out = run_ok(Command::new("bash").args(["-c", &program, "complete", line]));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn help_ends_with_the_exit_status_of_every_class() {
    let out = run_ok(rehash_command().arg("--help"));
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("Exit status"), "{help}");
    for (code, word) in [
        (0, "Done"),
        (1, "Refused"),
        (2, "Usage"),
        (3, "Failed"),
        (130, "Interrupted"),
    ] {
        assert!(
            help.contains(&format!("{code:>3}  {word}")),
            "{code} {word}:\n{help}"
        );
    }
}
