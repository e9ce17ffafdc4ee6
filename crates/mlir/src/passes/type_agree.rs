//! The type agreement that MLIR's verifier demands of the ops whose
//! values the stride passes retype: a loop-carried value keeps one type
//! from its init through the region arguments, the yields and the
//! results. A pass that breaks it would print a module that does not read
//! back (in MLIR the pass manager's verifier rejects it), so
//! `hivm-enable-stride-align` checks its output with [`check`].
//!
//! Checked: `scf.for` (inits, iter args, yield, results), `scf.while`
//! (inits and `before` arguments, `scf.condition` arguments, `after`
//! arguments and results, the `after` yield and `before` arguments),
//! `scf.if` (each branch's yield and the results), `arith.select` on
//! memrefs (both choices and the result), `func.call` (operands and the
//! callee's signature) and `func.func` (entry arguments and signature).

use crate::ir::{Module, OpId, Type, ValueId};

/// Two types that must agree and do not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The op whose types disagree.
    pub op: OpId,
    /// What disagrees, with both types.
    pub message: String,
}

/// Checks the ops in `ops`; the first disagreement found.
pub fn check(m: &Module, ops: &[OpId]) -> Result<(), Disagreement> {
    match disagreements(m, ops).into_iter().next() {
        Some(d) => Err(d),
        None => Ok(()),
    }
}

/// Every op of `ops` whose types disagree, in order.
pub fn disagreements(m: &Module, ops: &[OpId]) -> Vec<Disagreement> {
    ops.iter()
        .filter(|&&op| !m.op(op).is_erased())
        .filter_map(|&op| {
            check_op(m, op)
                .err()
                .map(|message| Disagreement { op, message })
        })
        .collect()
}

/// `Err(message)` when `a`'s and `b`'s types differ.
fn same(m: &Module, a: ValueId, b: ValueId, what: &str) -> Result<(), String> {
    let (ta, tb) = (m.value_type(a), m.value_type(b));
    if ta == tb {
        Ok(())
    } else {
        Err(format!("{what}: {ta} vs {tb}"))
    }
}

/// Pairs `a[i]`/`b[i]`; a count mismatch is itself a disagreement.
fn pairwise(m: &Module, a: &[ValueId], b: &[ValueId], what: &str) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{what}: {} vs {} values", a.len(), b.len()));
    }
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        same(m, x, y, &format!("{what} #{i}"))?;
    }
    Ok(())
}

/// The operands of the terminator of `op`'s region `r` (entry block).
fn terminator_operands(m: &Module, op: OpId, r: usize) -> Option<Vec<ValueId>> {
    let b = m.entry_block(op, r)?;
    let t = m.last_op(b)?;
    Some(m.op(t).operands().to_vec())
}

fn check_op(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    match d.name() {
        "scf.for" => {
            let Some(p) = m.for_parts(op) else {
                return Ok(());
            };
            pairwise(m, &p.inits, &p.iter_args, "init and iter_arg")?;
            pairwise(m, &p.inits, &p.results, "init and result")?;
            if let Some(y) = p.yield_op {
                pairwise(m, m.op(y).operands(), &p.iter_args, "yield and iter_arg")?;
            }
        }
        "scf.while" => {
            let (Some(before), Some(after)) = (m.entry_block(op, 0), m.entry_block(op, 1)) else {
                return Ok(());
            };
            let (before_args, after_args) = (m.block_args(before), m.block_args(after));
            pairwise(m, d.operands(), before_args, "init and 'before' argument")?;
            if let Some(cond) = terminator_operands(m, op, 0) {
                // scf.condition(%c) %args...: the flag is operand 0.
                let passed = cond.get(1..).unwrap_or(&[]);
                pairwise(m, passed, after_args, "scf.condition and 'after' argument")?;
                pairwise(m, passed, d.results(), "scf.condition and result")?;
            }
            if let Some(y) = terminator_operands(m, op, 1) {
                pairwise(m, &y, before_args, "'after' yield and 'before' argument")?;
            }
        }
        "scf.if" => {
            // An absent `else` region has no block, hence no terminator.
            for r in 0..d.regions().len() {
                if let Some(y) = terminator_operands(m, op, r) {
                    pairwise(m, &y, d.results(), "branch yield and result")?;
                }
            }
        }
        "arith.select" => {
            if let (&[_, t, f], &[r]) = (d.operands(), d.results()) {
                if m.value_type(r).as_memref().is_some() {
                    same(m, t, r, "true value and result")?;
                    same(m, f, r, "false value and result")?;
                }
            }
        }
        "func.call" => {
            let Some(callee) = super::common::callee_of(m, op) else {
                return Ok(());
            };
            let Some(f) = m.func_type(callee) else {
                return Ok(());
            };
            let args: Vec<Type> = d
                .operands()
                .iter()
                .map(|&v| m.value_type(v).clone())
                .collect();
            if args != f.inputs {
                return Err(format!(
                    "operands and the signature of @{}",
                    m.func_name(callee).unwrap_or("?")
                ));
            }
        }
        "func.func" => {
            let (Some(f), Some(b)) = (m.func_type(op), m.func_body(op)) else {
                return Ok(());
            };
            let args: Vec<Type> = m
                .block_args(b)
                .iter()
                .map(|&v| m.value_type(v).clone())
                .collect();
            if args != f.inputs {
                return Err("entry arguments and the signature".into());
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_module, ParseOptions};

    const S: &str = "memref<4xf16, strided<[2], offset: 1>>";
    const D: &str = "memref<4xf16>";

    /// Reads `body` (a function of `%c: i1, %s: S, %d: D`), makes operand
    /// `index` of its first `op` read `%d` (the reader refuses such a
    /// module, so the disagreement is made after reading, as a pass
    /// would), and returns the first disagreement.
    fn retarget(body: &str, op: &str, index: usize) -> (Result<(), String>, Result<(), String>) {
        let src = format!("func.func @f(%c: i1, %s: {S}, %d: {D}) {{\n{body}\n  return\n}}");
        let mut m = parse_module(&src, &ParseOptions::default()).expect("reads");
        let first = |m: &Module| {
            check(m, &m.all_ops()).map_err(|d| format!("{}: {}", m.op(d.op).name(), d.message))
        };
        let before = first(&m);
        let target = m
            .all_ops()
            .into_iter()
            .find(|&o| m.op(o).is(op))
            .expect("op");
        let func = m.funcs()[0];
        let d = m.block_args(m.func_body(func).expect("body"))[2];
        m.set_operand(target, index, d);
        (before, first(&m))
    }

    /// A `scf.while` carrying `%s` (of type `S`) unchanged.
    fn while_body() -> String {
        format!(
            "  %r = scf.while (%w = %s) : ({S}) -> ({S}) {{
    scf.condition(%c) %w : {S}
  }} do {{
  ^bb0(%x: {S}):
    scf.yield %x : {S}
  }}"
        )
    }

    #[test]
    fn while_init_must_match_before_arguments() {
        let body = while_body();
        let (before, after) = retarget(&body, "scf.while", 0);
        assert_eq!(before, Ok(()));
        assert_eq!(
            after,
            Err(format!(
                "scf.while: init and 'before' argument #0: {D} vs {S}"
            ))
        );
    }

    #[test]
    fn while_yield_must_match_before_arguments() {
        let body = while_body();
        let (before, after) = retarget(&body, "scf.yield", 0);
        assert_eq!(before, Ok(()));
        assert_eq!(
            after,
            Err(format!(
                "scf.while: 'after' yield and 'before' argument #0: {D} vs {S}"
            ))
        );
    }

    #[test]
    fn if_branch_yields_must_match_results() {
        let body = format!(
            "  %r = scf.if %c -> ({S}) {{
    scf.yield %s : {S}
  }} else {{
    scf.yield %s : {S}
  }}"
        );
        let (before, after) = retarget(&body, "scf.yield", 0);
        assert_eq!(before, Ok(()));
        assert_eq!(
            after,
            Err(format!("scf.if: branch yield and result #0: {D} vs {S}"))
        );
    }

    #[test]
    fn select_choices_must_match_result() {
        let body = format!("  %r = arith.select %c, %s, %s : {S}");
        let (before, after) = retarget(&body, "arith.select", 2);
        assert_eq!(before, Ok(()));
        assert_eq!(
            after,
            Err(format!("arith.select: false value and result: {D} vs {S}"))
        );
    }
}
