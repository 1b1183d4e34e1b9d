//! `git-rehash generate man|complete-bash|complete-zsh|complete-fish`: the
//! manual page and the completion scripts, made from the clap definition
//! of the command line so that they never drift from it (as ripgrep's
//! `rg --generate`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell;

use super::Cli;

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
    /// bash completion (source it, or install it as
    /// completions/git-rehash in bash-completion's directory).
    CompleteBash,
    /// zsh completion (install it as _git-rehash in a directory of fpath).
    CompleteZsh,
    /// fish completion (install it as completions/git-rehash.fish).
    CompleteFish,
}

pub fn run(args: GenerateArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let mut cli = Cli::command();
    match args.what {
        Generated::Man => super::manual::render(cli, &mut out),
        Generated::CompleteBash => complete(Shell::Bash, &mut cli, &mut out),
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
