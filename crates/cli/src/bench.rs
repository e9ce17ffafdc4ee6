//! `tilemem bench`.

use std::path::PathBuf;
use std::process::ExitCode;

/// Flags of `tilemem bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Input file.
    pub file: PathBuf,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    eprintln!(
        "tilemem bench: not implemented yet ({})",
        args.file.display()
    );
    ExitCode::from(2)
}
