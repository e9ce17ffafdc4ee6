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

    /// Runs the pass with the whole context: diagnostics and the text it
    /// writes outside the diagnostic engine (see [`PassContext`]). Passes
    /// that only emit diagnostics keep the default, which calls
    /// [`Pass::run`].
    fn run_in(&self, module: &mut Module, cx: &mut PassContext) -> Result<(), PassFailed> {
        self.run(module, &mut cx.diags)
    }

    /// Sets the pass options from MLIR's option list (`name=value` items
    /// separated by spaces, as in `-pass=name=value name2=value2` or
    /// `pass{name=value}`). Passes without options accept only an empty
    /// list. The error names the option and the values it accepts.
    fn set_options(&mut self, text: &str) -> Result<(), String> {
        if text.trim().is_empty() {
            Ok(())
        } else {
            Err(format!(
                "pass '-{}' takes no options (got '{text}')",
                self.name()
            ))
        }
    }

    /// The options the pass accepts, as `(name, description)` pairs, for
    /// `--help`.
    fn options(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
}

/// What passes produce besides the module: diagnostics, the text some
/// reference passes print to standard output rather than through the
/// diagnostic engine (so `-verify-diagnostics` does not see it), and debug
/// traces for `-debug-only=TYPE`.
#[derive(Debug, Default)]
pub struct PassContext {
    /// Diagnostics, in emission order.
    pub diags: Vec<Diagnostic>,
    /// Text for standard output, printed before the module.
    pub stdout: String,
    /// Debug text for standard error.
    pub debug: String,
    /// The debug types enabled with `-debug-only` (MLIR's `DEBUG_TYPE`s).
    pub debug_only: Vec<String>,
    /// Set by a pass whose failure is the input's fault (a program or
    /// option value it does not accept: exit 2), as opposed to a request
    /// it understood but cannot meet (no placement fits: exit 1).
    pub bad_input: bool,
    /// Set by a pass whose own independent check refused its result (the
    /// placement check after PlanMemory): a bug in tilemem whatever the
    /// input (exit 3), not a request it cannot meet.
    pub internal: bool,
    /// Lines for the driver's summary on standard error (not part of the
    /// output; `-quiet` drops them).
    pub summary: Vec<String>,
    /// When set, the plan-memory passes record here the placement of each
    /// (function, space) they plan, for the summary line and the memory
    /// map; a function that overflows is drawn beyond its capacity
    /// ([`crate::passes::plan_memory::map`]).
    pub placements: Option<Vec<crate::passes::plan_memory::map::SpacePlacement>>,
    /// With `placements`: also record the functions that overflow, planned
    /// again with larger capacities (for a memory map; it costs more
    /// plans).
    pub placements_beyond_capacity: bool,
    /// The options the last plan-memory pass ran with (what an
    /// explanation of its result re-plans with).
    pub plan_options: Option<crate::passes::plan_memory::Options>,
}

impl PassContext {
    /// Whether debug output of `debug_type` is enabled.
    pub fn debug_enabled(&self, debug_type: &str) -> bool {
        self.debug_only.iter().any(|t| t == debug_type)
    }
}

/// Splits an option list (`a=1 b="x y" c={1,2}`) into `(name, value)`
/// pairs; a name without `=` has an empty value. Quotes around a value are
/// removed; spaces inside quotes or braces do not split.
pub fn split_options(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    let mut quote = false;
    for c in text.chars() {
        match c {
            '"' => {
                quote = !quote;
                cur.push(c);
            }
            '{' | '[' if !quote => {
                depth += 1;
                cur.push(c);
            }
            '}' | ']' if !quote => {
                depth -= 1;
                cur.push(c);
            }
            c if c.is_whitespace() && !quote && depth == 0 => {
                if !cur.is_empty() {
                    items.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if quote || depth != 0 {
        return Err(format!(
            "unbalanced quotes or braces in the option list '{text}'"
        ));
    }
    if !cur.is_empty() {
        items.push(cur);
    }
    Ok(items
        .into_iter()
        .map(|item| {
            let (n, v) = item.split_once('=').unwrap_or((item.as_str(), ""));
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(v);
            (n.trim().to_string(), v.to_string())
        })
        .collect())
}

/// Parses a boolean option value as MLIR's `cl::opt<bool>` does (`true`,
/// `false`, `1`, `0`; an empty value means `true`).
pub fn parse_bool_option(pass: &str, name: &str, value: &str) -> Result<bool, String> {
    match value {
        "" | "true" | "TRUE" | "True" | "1" => Ok(true),
        "false" | "FALSE" | "False" | "0" => Ok(false),
        _ => Err(format!(
            "pass '-{pass}': option '{name}' takes true or false (got '{value}')"
        )),
    }
}

/// Parses an integer option value.
pub fn parse_int_option(pass: &str, name: &str, value: &str) -> Result<i64, String> {
    value
        .parse::<i64>()
        .map_err(|_| format!("pass '-{pass}': option '{name}' takes an integer (got '{value}')"))
}

/// Runs `passes` in order over `module`. Stops at the first pass that
/// signals failure; errors emitted without failing do not stop the
/// pipeline (see the module docs). Returns every diagnostic emitted, and
/// whether all passes succeeded.
pub fn run_pipeline(passes: &[Box<dyn Pass>], module: &mut Module) -> (Vec<Diagnostic>, bool) {
    let mut cx = PassContext::default();
    let ok = run_pipeline_in(passes, module, &mut cx);
    (cx.diags, ok)
}

/// Runs `passes` in order over `module` with the context `cx` (see
/// [`run_pipeline`]); returns whether all passes succeeded.
pub fn run_pipeline_in(
    passes: &[Box<dyn Pass>],
    module: &mut Module,
    cx: &mut PassContext,
) -> bool {
    for p in passes {
        if p.run_in(module, cx).is_err() {
            debug_assert!(
                cx.diags.iter().any(|d| d.severity == Severity::Error),
                "pass {} failed without an error",
                p.name()
            );
            return false;
        }
    }
    true
}
