//! `tilemem fmt`.

use std::path::PathBuf;
use std::process::ExitCode;

/// Flags of `tilemem fmt`.
#[derive(clap::Args)]
pub struct Args {
    /// Input file.
    pub file: PathBuf,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    eprintln!("tilemem fmt: not implemented yet ({})", args.file.display());
    ExitCode::from(2)
}
