//! Command-line interface: clap arguments, one file per subcommand, and the
//! progress bars (the only place that draws on the terminal).

mod attest_cmd;
mod convert_cmd;
mod convert_exit;
mod export_cmd;
mod json_report;
mod map_cmd;
mod phase_timings;
mod progress_bars;
mod repack_cmd;
mod translate_text_cmd;
mod verify_cmd;
mod verify_statement;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Convert Git repositories from SHA-1 to SHA-256 object names.
#[derive(Debug, Parser)]
#[command(name = "git-rehash", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Convert a SHA-1 repository into a new SHA-256 repository.
    Convert(convert_cmd::ConvertArgs),
    /// Query or export the SHA-1 <-> SHA-256 map of a converted repository.
    Map(map_cmd::MapArgs),
    /// Rewrite the SHA-1 commit and tag names in a text (stdin to stdout).
    TranslateText(translate_text_cmd::TranslateTextArgs),
    /// Fold the packs of a converted repository (one per incremental run)
    /// into one, and write its commit-graph and bitmap again.
    Repack(repack_cmd::RepackArgs),
    /// Write the history of a converted (SHA-256) repository back into a
    /// SHA-1 mirror, with the SHA-1 names git's compat mode gives it.
    #[command(name = "export-sha1")]
    ExportSha1(export_cmd::ExportArgs),
    /// Check a conversion: object names, the map (by translating back to
    /// SHA-1), and refs (against SOURCE when given).
    Verify(verify_cmd::VerifyArgs),
    /// Sign a statement of a conversion (refs, map, pack) into it, as the
    /// tag refs/rehash/attestation.
    Attest(attest_cmd::AttestArgs),
}

/// Runs the command line; every error ends here, printed as a chain.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Convert(args) => convert_cmd::run(args),
        Command::Map(args) => map_cmd::run(args),
        Command::TranslateText(args) => translate_text_cmd::run(args),
        Command::Verify(args) => verify_cmd::run(args),
        Command::Repack(args) => repack_cmd::run(args),
        Command::ExportSha1(args) => export_cmd::run(args),
        Command::Attest(args) => attest_cmd::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => report_error(&err, 1),
    }
}

/// Prints `err` with its causes and returns `status`, or success when it
/// is a closed stdout: like `git log | head`, a reader that stopped early
/// is not an error.
pub fn report_error(err: &anyhow::Error, status: u8) -> ExitCode {
    if is_broken_pipe(err) {
        return ExitCode::SUCCESS;
    }
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "git-rehash: error: {err}");
    for cause in err.chain().skip(1) {
        let _ = write!(stderr, "\n  caused by: {cause}");
    }
    let _ = writeln!(stderr);
    ExitCode::from(status)
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
