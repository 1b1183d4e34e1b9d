//! The command line's own output, beyond what a subcommand does to a
//! repository: `convert --json`.

mod json_report;
