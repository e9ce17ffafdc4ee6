//! The pass interface and the pipeline runner (the registry of this
//! crate's passes is [`crate::passes::registry`]).
//!
//! A pass transforms a whole [`Module`] in place. It reports what it has to
//! say (errors, warnings, remarks) as [`Diagnostic`]s and fails by returning
//! [`PassFailed`] after emitting at least one error, like MLIR's
//! `signalPassFailure`. The driver stops the pipeline at the first failure
//! and prints no output for that input chunk.
//!
//! An error a pass emits without failing is only a diagnostic, as in MLIR:
//! the reference passes report e.g. `unsupport flatten op`
//! (`MarkStrideAlign.cpp`) or `Cannot align ... across blocks.` (a pattern
//! of `PropagateAlignUtil.cpp` run by `applyPatternsGreedily`, which fails
//! only when it does not converge) and go on. `mlir-opt`-style drivers
//! then run the remaining passes, print the module and exit 0: the exit
//! code reflects `PassManager::run`, which fails only on a signalled
//! failure (or a verifier error).

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

/// Runs `passes` in order over `module`. Stops at the first pass that
/// signals failure; errors emitted without failing do not stop the
/// pipeline (see the module docs). Returns every diagnostic emitted, and
/// whether all passes succeeded.
pub fn run_pipeline(passes: &[Box<dyn Pass>], module: &mut Module) -> (Vec<Diagnostic>, bool) {
    let mut diags = Vec::new();
    for p in passes {
        if p.run(module, &mut diags).is_err() {
            debug_assert!(
                diags.iter().any(|d| d.severity == Severity::Error),
                "pass {} failed without an error",
                p.name()
            );
            return (diags, false);
        }
    }
    (diags, true)
}
