//! `tilemem opt`: an mlir-opt style driver for the HIVM passes.

use std::process::ExitCode;

/// Runs the driver on the arguments after `opt`.
pub fn run(args: &[String]) -> ExitCode {
    eprintln!("tilemem opt: not implemented yet ({args:?})");
    ExitCode::from(2)
}
