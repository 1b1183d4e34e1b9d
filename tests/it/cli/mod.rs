//! The command line's own output, beyond what a subcommand does to a
//! repository: `convert --json`, the exit status and message of each
//! mistake, the manual and the completion scripts.

mod json_report;
mod manual;
mod mistakes;
