//! `git-rehash generate man|complete-bash|complete-zsh|complete-fish`: the
//! manual page and the completion scripts, made from the clap definition
//! of the command line so that they never drift from it (as ripgrep's
//! `rg --generate`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use clap_complete::Shell;

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// What to print on stdout: the manual page git-rehash(1) in roff
    /// (install it as man1/git-rehash.1 in a MANPATH directory, and `git
    /// help rehash` shows it), or the completion script of a shell.
    #[arg(value_enum, value_name = "WHAT")]
    what: Generated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Generated {
    /// The manual page git-rehash(1).
    Man,
    /// bash completion, of `git-rehash ...` and, through git's own
    /// completion, `git rehash ...` (source it, or install it as
    /// completions/git-rehash in bash-completion's directory).
    CompleteBash,
    /// zsh completion (install it as _git-rehash in a directory of fpath).
    CompleteZsh,
    /// fish completion (install it as completions/git-rehash.fish).
    CompleteFish,
}

/// Prints what `args` asks for, made from `cli`, the definition of the
/// whole command line (passed in: this file is one of its parts).
pub fn run(args: GenerateArgs, mut cli: clap::Command) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match args.what {
        Generated::Man => super::manual::render(cli, &mut out),
        Generated::CompleteBash => bash_completion(&mut cli, &mut out),
        Generated::CompleteZsh => complete(Shell::Zsh, &mut cli, &mut out),
        Generated::CompleteFish => complete(Shell::Fish, &mut cli, &mut out),
    }
    .and_then(|()| out.flush())
    .context("writing to stdout")?;
    Ok(ExitCode::SUCCESS)
}

fn complete(shell: Shell, cli: &mut clap::Command, out: &mut dyn Write) -> std::io::Result<()> {
    let name = cli.get_name().to_string();
    clap_complete::generate(shell, cli, name, out);
    Ok(())
}

/// clap_complete's bash script, mended, and the function git's own bash
/// completion calls for `git rehash <TAB>`.
fn bash_completion(cli: &mut clap::Command, out: &mut dyn Write) -> std::io::Result<()> {
    let mut script = Vec::new();
    complete(Shell::Bash, cli, &mut script)?;
    let script = String::from_utf8(script).map_err(std::io::Error::other)?;
    // clap_complete 4.6 names the state of a subcommand of a binary whose
    // name has a hyphen one way where it walks the words
    // (`git__rehash__subcmd__convert`) and another where it answers
    // (`git__subcmd__rehash__subcmd__convert`), so nothing after a
    // subcommand completed; one spelling makes them meet.
    out.write_all(
        script
            .replace("git__subcmd__rehash", "git__rehash")
            .as_bytes(),
    )?;
    out.write_all(GIT_SUBCOMMAND_COMPLETION.as_bytes())
}

/// git's bash completion completes `git rehash ...` through a function
/// `_git_rehash`, with the words in `words`, the current one at `cword`
/// and `rehash` at `__git_cmd_idx`: it answers as for `git-rehash ...`.
const GIT_SUBCOMMAND_COMPLETION: &str = r#"
# `git rehash <TAB>`, through git's own bash completion.
_git_rehash() {
    local COMP_WORDS=(git-rehash "${words[@]:__git_cmd_idx+1}")
    local COMP_CWORD=$((cword - __git_cmd_idx))
    _git__rehash git-rehash "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}
"#;
