//! Printing `scf.forall`, `scf.forall.in_parallel` and `scf.parallel` as
//! their upstream printers do (`ForallOp::print`, `ParallelOp::print`).

use crate::ir::{Attribute, OpId, ValueId, DYNAMIC};
use crate::print::ops::OpPrinter;

/// Whether `v` is an `arith.constant` equal to `k` (MLIR's
/// `isConstantIntValue`, which `ForallOp::isNormalized` uses).
fn is_constant(m: &crate::ir::Module, v: ValueId, k: i64) -> bool {
    match m.value_def(v) {
        crate::ir::ValueDef::OpResult { op, .. } => {
            let d = m.op(op);
            d.is("arith.constant") && d.attr("value").and_then(Attribute::as_int) == Some(k)
        }
        _ => false,
    }
}

impl OpPrinter<'_> {
    /// `(a, %b, 4)`: a mixed static/dynamic list.
    fn paren_mixed(&mut self, statics: &[i64], dynamics: &[ValueId]) -> Option<()> {
        self.push("(");
        let mut k = 0;
        for (i, &s) in statics.iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            if s == DYNAMIC {
                self.print_values(&[*dynamics.get(k)?]);
                k += 1;
            } else {
                self.push(&s.to_string());
            }
        }
        self.push(")");
        Some(())
    }

    pub(crate) fn print_forall(&mut self, op: OpId) -> bool {
        self.forall(op).is_some()
    }

    fn forall(&mut self, op: OpId) -> Option<()> {
        let m = self.module();
        let d = m.op(op);
        if d.segments.len() != 4 {
            return None;
        }
        let seg = |i: usize| d.segment(i).to_vec();
        let (dlb, dub, dst, outs) = (seg(0), seg(1), seg(2), seg(3));
        let get = |n: &str| d.attr(n).and_then(Attribute::as_int_array);
        let (slb, sub, sst) = (
            get("staticLowerBound")?,
            get("staticUpperBound")?,
            get("staticStep")?,
        );
        let body = m.entry_block(op, 0)?;
        let args = m.block_args(body).to_vec();
        let n = sub.len();
        if args.len() != n + outs.len() || d.results().len() != outs.len() {
            return None;
        }
        // Normalized: every lower bound is 0 and every step 1, constants
        // included.
        let all = |statics: &[i64], dyns: &[ValueId], k: i64| {
            let mut it = dyns.iter();
            statics.iter().all(|&s| match s {
                DYNAMIC => it.next().is_some_and(|&v| is_constant(m, v, k)),
                s => s == k,
            })
        };
        self.push("scf.forall (");
        self.print_values(&args[..n]);
        if all(&slb, &dlb, 0) && all(&sst, &dst, 1) {
            self.push(") in ");
            self.paren_mixed(&sub, &dub)?;
        } else {
            self.push(") = ");
            self.paren_mixed(&slb, &dlb)?;
            self.push(" to ");
            self.paren_mixed(&sub, &dub)?;
            self.push(" step ");
            self.paren_mixed(&sst, &dst)?;
        }
        if !outs.is_empty() {
            self.push(" shared_outs(");
            for (i, (&a, &o)) in args[n..].iter().zip(&outs).enumerate() {
                if i > 0 {
                    self.push(", ");
                }
                self.print_values(&[a]);
                self.push(" = ");
                self.print_values(&[o]);
            }
            self.push(") -> (");
            self.print_types_of(d.results());
            self.push(")");
        }
        self.push(" ");
        self.print_region(d.regions()[0], false, !outs.is_empty());
        self.print_attr_dict(op, &["staticLowerBound", "staticUpperBound", "staticStep"]);
        Some(())
    }

    pub(crate) fn print_in_parallel(&mut self, op: OpId) -> bool {
        let d = self.module().op(op);
        let Some(&r) = d.regions().first() else {
            return false;
        };
        self.push("scf.forall.in_parallel ");
        self.print_region(r, false, true);
        self.print_attr_dict(op, &[]);
        true
    }

    pub(crate) fn print_parallel(&mut self, op: OpId) -> bool {
        let m = self.module();
        let d = m.op(op);
        if d.segments.len() != 4 || d.regions().len() != 1 {
            return false;
        }
        let Some(body) = m.entry_block(op, 0) else {
            return false;
        };
        let ivs = m.block_args(body).to_vec();
        self.push("scf.parallel (");
        self.print_values(&ivs);
        self.push(") = (");
        self.print_values(d.segment(0));
        self.push(") to (");
        self.print_values(d.segment(1));
        self.push(") step (");
        self.print_values(d.segment(2));
        self.push(")");
        if !d.segment(3).is_empty() {
            self.push(" init (");
            self.print_values(d.segment(3));
            self.push(")");
        }
        if !d.results().is_empty() {
            self.push(" -> (");
            self.print_types_of(d.results());
            self.push(")");
        }
        self.push(" ");
        self.print_region(d.regions()[0], false, true);
        self.print_attr_dict(op, &[]);
        true
    }
}
