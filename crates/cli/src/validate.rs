//! `tilemem validate`.

use std::path::PathBuf;
use std::process::ExitCode;

/// Flags of `tilemem validate`.
#[derive(clap::Args)]
pub struct Args {
    /// Input file.
    pub file: PathBuf,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    eprintln!(
        "tilemem validate: not implemented yet ({})",
        args.file.display()
    );
    ExitCode::from(2)
}
