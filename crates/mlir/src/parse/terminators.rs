//! MLIR's terminator rule for the regions of ops the reader knows: every
//! block of a region of an op that does not have the `NoTerminator` trait
//! ends with a terminator (MLIR's verifier: "block with no terminator" and
//! "empty block: expect at least a terminator").
//!
//! Ops with an implicit terminator (`scf.for`, `scf.if`, `scf.parallel`,
//! `scf.forall`, `scope.scope`) get it from their custom-form reader when the text omits
//! it, as MLIR's parser does (`ensureTerminator`), so the short form their
//! printers write keeps reading; their generic form writes every
//! terminator, and so must the text. Without the rule a block could end
//! in an op a pass may erase (an unused allocation), leaving a block with
//! nothing in it, which no text reads back as.

use crate::dialect::func::FUNCTION_TERMINATORS;
use crate::ir::{Diagnostic, Module, OpId, RegionId};

/// The registered ops whose regions need a terminator in every block, with
/// the terminators that may end them (MLIR's `IsTerminator` ops of the
/// dialects read here; a branch, an op with successors, may end any).
/// Ops not listed either have no regions, have the `NoTerminator` trait
/// (`builtin.module`, `gpu.module`, `scf.forall.in_parallel`), are read
/// without knowing their traits (an unregistered op, a lenient one), or
/// have an implicit terminator the reader does not add (`vector.mask`'s
/// yields the masked op's results, which its short form leaves out).
const NEEDS_TERMINATOR: &[(&str, &[&str])] = &[
    ("func.func", FUNCTION_TERMINATORS),
    ("gpu.func", &["gpu.return"]),
    ("linalg.generic", &["linalg.yield"]),
    ("linalg.reduce", &["linalg.yield"]),
    ("llvm.func", FUNCTION_TERMINATORS),
    ("llvm.mlir.global", &["llvm.return"]),
    ("scf.for", &["scf.yield"]),
    ("scf.forall", &["scf.forall.in_parallel"]),
    ("scf.if", &["scf.yield"]),
    ("scf.parallel", &["scf.reduce"]),
    ("scf.reduce", &["scf.reduce.return"]),
    ("scf.while", &["scf.condition", "scf.yield"]),
    ("scope.scope", &["scope.return"]),
    ("transform.named_sequence", FUNCTION_TERMINATORS),
];

/// The terminators `op` accepts at the end of its regions' blocks, or
/// `None` when its blocks need none (or the reader does not know).
fn terminators_of(op: &str) -> Option<&'static [&'static str]> {
    NEEDS_TERMINATOR
        .iter()
        .find(|(name, _)| *name == op)
        .map(|(_, t)| *t)
}

/// Whether `op` may end a block that needs a terminator: one of `allowed`,
/// a branch (an op with successors), or an op whose traits the reader
/// does not know (an unregistered op, which MLIR lets end a block too).
fn may_end_block(m: &Module, op: OpId, allowed: &[&str]) -> bool {
    let d = m.op(op);
    let name = d.name();
    allowed.contains(&name)
        || !d.successors().is_empty()
        || (crate::dialect::custom_form(name).is_none()
            && crate::ir::format::lookup(name).is_none())
}

/// Checks MLIR's terminator rule on the regions of an op named `op` just
/// read; `op_loc` locates an empty block (which has no op to point at).
pub(crate) fn check(
    m: &Module,
    op: &str,
    regions: &[RegionId],
    op_loc: &crate::ir::Location,
) -> Result<(), Diagnostic> {
    let Some(allowed) = terminators_of(op) else {
        return Ok(());
    };
    // Named in the message: the op's own dialect's terminators (a
    // `func.func` ends with `func.return`; the other dialects' ones it
    // also accepts, branches and returns read into it, are not the advice).
    let dialect = |t: &str| t.split('.').next().unwrap_or(t).to_string();
    let own: Vec<&str> = allowed
        .iter()
        .copied()
        .filter(|t| dialect(t) == dialect(op))
        .collect();
    let names = (if own.is_empty() { allowed } else { &own[..] })
        .iter()
        .map(|t| format!("'{t}'"))
        .collect::<Vec<_>>()
        .join(" or ");
    for &r in regions {
        for &b in m.region_blocks(r) {
            match m.last_op(b) {
                None => {
                    return Err(Diagnostic::error(
                        *op_loc,
                        format!(
                            "empty block: expect at least a terminator: a block of '{op}' \
                             ends with {names} (or a branch)"
                        ),
                    ))
                }
                Some(last) if !may_end_block(m, last, allowed) => {
                    let d = m.op(last);
                    return Err(Diagnostic::error(
                        d.loc,
                        format!(
                            "block with no terminator, has '{}': end each block of '{op}' \
                             with {names} (or a branch)",
                            d.name()
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// An `scf.for` or `scf.if` yields one value per result from each block
/// (MLIR's region-branch verifier: the yield's operands are the values the
/// op's results take); a yield of another count leaves a result without a
/// value, or a value without a result.
pub(crate) fn check_yields(
    m: &Module,
    op: &str,
    regions: &[RegionId],
    results: usize,
) -> Result<(), Diagnostic> {
    if op != "scf.for" && op != "scf.if" {
        return Ok(());
    }
    for &r in regions {
        for &b in m.region_blocks(r) {
            let Some(last) = m.last_op(b) else { continue };
            let d = m.op(last);
            if d.name() != "scf.yield" || d.operands().len() == results {
                continue;
            }
            return Err(Diagnostic::error(
                d.loc,
                format!(
                    "'scf.yield' op yields {} value(s), but the enclosing '{op}' has {results} \
                     result(s): yield one value per result",
                    d.operands().len()
                ),
            ));
        }
    }
    Ok(())
}
