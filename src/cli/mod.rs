//! Command-line interface: clap arguments, one file per subcommand, the
//! exit status of every outcome (exit_class.rs), the manual and completion
//! scripts made from the same definition, and the progress bars (the only
//! place that draws on the terminal).

mod attest_cmd;
mod command_report;
mod convert_cmd;
mod convert_exit;
mod convert_summary;
mod exit_class;
mod export_cmd;
mod generate_cmd;
mod json_report;
mod manual;
mod map_cmd;
mod phase_timings;
mod progress_bars;
mod repack_cmd;
mod translate_text_cmd;
mod verify_cmd;
mod verify_statement;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use exit_class::ExitClass;

/// Convert Git repositories between SHA-1 and SHA-256 object names.
#[derive(Debug, Parser)]
#[command(
    name = "git-rehash",
    version,
    about,
    long_about = manual::LONG_ABOUT,
    after_long_help = manual::exit_status_help(),
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Convert a SHA-1 repository into a new SHA-256 one, or a SHA-256
    /// repository into a new SHA-1 one.
    Convert(convert_cmd::ConvertArgs),
    /// Query or export the SHA-1 <-> SHA-256 map of a converted repository.
    Map(map_cmd::MapArgs),
    /// Rewrite SOURCE's commit and tag names in a text into DEST's (stdin
    /// to stdout).
    TranslateText(translate_text_cmd::TranslateTextArgs),
    /// Fold the packs of a converted repository (one per incremental run)
    /// into one, and write its commit-graph and bitmap again.
    Repack(repack_cmd::RepackArgs),
    /// Write the history of a converted (SHA-256) repository back into a
    /// SHA-1 mirror, with the SHA-1 names git's compat mode gives it.
    #[command(name = "export-sha1")]
    ExportSha1(export_cmd::ExportArgs),
    /// Check a conversion: object names, the map (by translating back to
    /// SOURCE's hash), and refs (against SOURCE when given).
    Verify(verify_cmd::VerifyArgs),
    /// Sign a statement of a conversion (refs, map, pack) into it, as the
    /// tag refs/rehash/attestation.
    Attest(attest_cmd::AttestArgs),
    /// Print the manual page git-rehash(1) or a shell's completion script.
    Generate(generate_cmd::GenerateArgs),
}

impl Command {
    /// Whether running it again continues where a failed run stopped.
    fn resumes(&self) -> bool {
        matches!(self, Command::Convert(_) | Command::ExportSha1(_))
    }
}

/// Runs the command line; every error ends here, printed as a chain, with
/// the exit status of its class.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return refused_command_line(e),
    };
    let resumes = cli.command.resumes();
    let result = match cli.command {
        Command::Convert(args) => convert_cmd::run(args),
        Command::Map(args) => map_cmd::run(args),
        Command::TranslateText(args) => translate_text_cmd::run(args),
        Command::Verify(args) => verify_cmd::run(args),
        Command::Repack(args) => repack_cmd::run(args),
        Command::ExportSha1(args) => export_cmd::run(args),
        Command::Attest(args) => attest_cmd::run(args),
        Command::Generate(args) => generate_cmd::run(args, Cli::command()),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            let class = ExitClass::of_error(&err);
            report_error(&err, class, resumes)
        }
    }
}

/// What clap could not parse: usage (status 2), also as a `--json`
/// report when the command line asks for one. `--help` and `--version`
/// end here too, with 0.
fn refused_command_line(e: clap::Error) -> ExitCode {
    if !e.use_stderr() {
        let _ = e.print();
        return ExitClass::Done.exit_code();
    }
    if let Some(command) = asks_for_json(std::env::args_os().skip(1)) {
        let rendered = e.render().to_string();
        let first = rendered.lines().next().unwrap_or_default();
        let message = first.strip_prefix("error: ").unwrap_or(first).to_string();
        let _ = if command == "convert" {
            json_report::RunReport::usage(message).print()
        } else {
            command_report::CommandReport::usage(&command, message).print()
        };
    }
    let _ = e.print();
    ExitClass::Usage.exit_code()
}

/// The subcommand `args` name, when it has `--json` and they pass it
/// (before a `--`).
fn asks_for_json(args: impl Iterator<Item = OsString>) -> Option<String> {
    let args: Vec<OsString> = args.take_while(|a| a != "--").collect();
    let name = args
        .iter()
        .find_map(|a| a.to_str().filter(|a| !a.starts_with('-')))?;
    let cli = Cli::command();
    let has_json = cli
        .find_subcommand(name)
        .is_some_and(|sub| sub.get_arguments().any(|a| a.get_long() == Some("json")));
    (has_json && args.iter().any(|a| a == "--json")).then(|| name.to_string())
}

/// Prints `err` with its causes and returns the exit status of `class`,
/// or success when it is a closed stdout: like `git log | head`, a reader
/// that stopped early is not an error. A failure of the machine says that
/// running the command again is safe.
fn report_error(err: &anyhow::Error, class: ExitClass, resumes: bool) -> ExitCode {
    if is_broken_pipe(err) {
        return ExitCode::SUCCESS;
    }
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "git-rehash: error: {err}");
    for cause in err.chain().skip(1) {
        let _ = write!(stderr, "\n  caused by: {cause}");
    }
    let _ = writeln!(stderr);
    if class == ExitClass::Failed {
        let _ = writeln!(
            stderr,
            "git-rehash: this is a failure of the machine, not of the repository: once its cause \
             is fixed, run the same command again{}",
            if resumes {
                " (it resumes where this run stopped)"
            } else {
                ""
            }
        );
    }
    class.exit_code()
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> impl Iterator<Item = OsString> {
        line.split(' ')
            .map(OsString::from)
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn json_is_asked_only_of_a_command_that_has_it() {
        let convert = Some("convert".to_string());
        assert_eq!(asks_for_json(args("convert --json --jbos 2 a b")), convert);
        assert_eq!(asks_for_json(args("convert a --json")), convert);
        assert_eq!(
            asks_for_json(args("repack --json a")),
            Some("repack".into())
        );
        assert_eq!(asks_for_json(args("convert a b")), None);
        assert_eq!(asks_for_json(args("convert a -- --json")), None);
        assert_eq!(asks_for_json(args("map --json a")), None);
        assert_eq!(asks_for_json(args("--json")), None);
    }

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
