//! The pass interface and the registry the driver uses.
//!
//! A pass transforms a whole [`Module`] in place. It reports what it has to
//! say (errors, warnings, remarks) as [`Diagnostic`]s and fails by returning
//! [`PassFailed`] after emitting at least one error, like MLIR's
//! `signalPassFailure`. The driver stops the pipeline at the first failure
//! and prints no output for that input chunk.

use crate::ir::{Diagnostic, Module, Severity};

/// A pass failed; the reasons are in the diagnostics it emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassFailed;

/// A module transformation.
pub trait Pass {
    /// The command-line flag without the leading dash, e.g.
    /// `hivm-mark-stride-align`.
    fn name(&self) -> &'static str;

    /// One-line description for `--help`.
    fn description(&self) -> &'static str;

    /// Runs the pass over `module`, pushing diagnostics to `diags`.
    fn run(&self, module: &mut Module, diags: &mut Vec<Diagnostic>) -> Result<(), PassFailed>;
}

/// Every registered pass, in registration order.
pub fn registry() -> Vec<Box<dyn Pass>> {
    crate::passes::all()
}

/// The registered pass whose flag is `name` (without dash).
pub fn lookup(name: &str) -> Option<Box<dyn Pass>> {
    registry().into_iter().find(|p| p.name() == name)
}

/// Runs `passes` in order over `module`. Stops at the first failing pass
/// (or at the first pass that emitted an error without saying it failed).
/// Returns every diagnostic emitted, and whether all passes succeeded.
pub fn run_pipeline(passes: &[Box<dyn Pass>], module: &mut Module) -> (Vec<Diagnostic>, bool) {
    let mut diags = Vec::new();
    for p in passes {
        let before = diags.len();
        let result = p.run(module, &mut diags);
        let errored = diags[before..]
            .iter()
            .any(|d| d.severity == Severity::Error);
        if result.is_err() || errored {
            return (diags, false);
        }
    }
    (diags, true)
}
