//! The `scf` ops in custom form: `for`, `if`, `while`, `condition`, and
//! `forall`, `forall.in_parallel`, `parallel` as their upstream printers
//! write them (`ForallOp::print`, `ParallelOp::print`); `scf.yield` and
//! `scf.reduce` are operand lists ([`super::shapes`]).
//!
//! `scf.forall` stores MLIR's properties: dynamic lower bounds, upper
//! bounds, steps and `shared_outs` as four operand segments, and
//! `staticLowerBound`/`staticUpperBound`/`staticStep` arrays
//! ([`DYNAMIC`] where the bound is a value); the normalized form
//! `in (ubs)` stands for lower bounds 0 and steps 1.

use std::fmt::Write;

use crate::ir::{Attribute, OpId, Type, ValueId, DYNAMIC};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Operand;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;

/// The custom forms of the dialect's ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `scf.for`.
    For,
    /// `scf.if`.
    If,
    /// `scf.while (%a = %init) : (T) -> R { ... } do { ... }`.
    While,
    /// `scf.condition(%c) %a : T`.
    Condition,
    /// `scf.forall (%i) in (4) shared_outs(..) -> (..) { }`.
    Forall,
    /// `scf.forall.in_parallel { }`.
    InParallel,
    /// `scf.parallel (%i) = (%a) to (%b) step (%c) { }`.
    Parallel,
}

/// The form of `scf.<op>` (`op` without the dialect prefix).
pub(super) fn form(op: &str) -> Option<super::Form> {
    Some(match op {
        "for" => super::Form::Scf(Form::For),
        "if" => super::Form::Scf(Form::If),
        "while" => super::Form::Scf(Form::While),
        "condition" => super::Form::Scf(Form::Condition),
        "forall" => super::Form::Scf(Form::Forall),
        "forall.in_parallel" => super::Form::Scf(Form::InParallel),
        "parallel" => super::Form::Scf(Form::Parallel),
        "yield" | "reduce" => super::Form::Shape(super::shapes::Form::OperandList),
        _ => return None,
    })
}

impl Parser<'_> {
    /// Reads the rest of an `scf` op in custom form (after its name).
    pub(crate) fn parse_scf_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::For => self.parse_for(b),
            Form::If => self.parse_if(b),
            Form::While => self.parse_while(b),
            Form::Condition => self.parse_condition(b),
            Form::Forall => self.parse_forall(b),
            Form::InParallel => self.parse_in_parallel(b),
            Form::Parallel => self.parse_parallel(b),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints an `scf` op in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_scf_op(&mut self, op: OpId, form: Form, name: &str) -> bool {
        match form {
            Form::For => self.print_for(op),
            Form::If => self.print_if(op),
            Form::While => self.print_while(op, name),
            Form::Condition => self.print_condition(op, name),
            Form::Forall => self.print_forall(op),
            Form::InParallel => self.print_in_parallel(op),
            Form::Parallel => self.print_parallel(op),
        }
    }
}

// `scf.for %i = %lb to %ub step %s [iter_args(..) -> (..)] [: T] { .. } {attrs}`.

impl Parser<'_> {
    fn parse_for(&mut self, b: &mut Built) -> PResult<()> {
        self.c.skip_ws();
        let iv_pos = self.c.pos();
        self.c.expect("%")?;
        let Some(iv) = self.c.suffix_id() else {
            return self.c.err("expected induction variable name");
        };
        let iv = iv.to_string();
        self.c.expect("=")?;
        let lb = self.parse_operand()?;
        self.c.expect("to")?;
        let ub = self.parse_operand()?;
        self.c.expect("step")?;
        let step = self.parse_operand()?;
        let mut iter_names = Vec::new();
        let mut inits = Vec::new();
        let mut types = Vec::new();
        if self.c.eat_keyword("iter_args") {
            (iter_names, inits) = self.parse_bound_args("iteration argument")?;
            self.c.expect("->")?;
            types = self.parse_result_types()?;
            if types.len() != inits.len() {
                return self.c.err(format!(
                    "expected {} result types, found {}",
                    inits.len(),
                    types.len()
                ));
            }
            self.check_types(&inits, &types)?;
        }
        let mut iv_ty = Type::Index;
        if self.c.eat(":") {
            iv_ty = self.parse_type()?;
        }
        self.check_all(&[lb.clone(), ub.clone(), step.clone()], &iv_ty)?;
        let mut args = vec![(iv, iv_ty, iv_pos)];
        for ((n, pos), t) in iter_names.into_iter().zip(&types) {
            args.push((n, t.clone(), pos));
        }
        let r = self.m.new_detached_region();
        self.parse_region(r, &args)?;
        self.ensure_terminator(r, "scf.yield");
        b.regions.push(r);
        self.parse_opt_attr_dict(b)?;
        b.operands(&[lb, ub, step]);
        b.operands(&inits);
        b.spec.result_types = types;
        Ok(())
    }
}

impl OpPrinter<'_> {
    fn print_for(&mut self, op: OpId) -> bool {
        let m = self.m;
        let Some(parts) = m.for_parts(op) else {
            return false;
        };
        if parts.iter_args.len() != parts.inits.len() || parts.results.len() != parts.inits.len() {
            return false;
        }
        let name = self.op_name("scf.for");
        let _ = write!(self.out, "{name} ");
        self.value(parts.iv);
        self.out.push_str(" = ");
        self.value(parts.lower);
        self.out.push_str(" to ");
        self.value(parts.upper);
        self.out.push_str(" step ");
        self.value(parts.step);
        if !parts.inits.is_empty() {
            self.out.push_str(" iter_args(");
            for (i, (&a, &init)) in parts.iter_args.iter().zip(&parts.inits).enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.value(a);
                self.out.push_str(" = ");
                self.value(init);
            }
            self.out.push_str(") -> (");
            self.types_of(&parts.results);
            self.out.push(')');
        }
        self.out.push(' ');
        let ivt = m.value_type(parts.iv);
        if *ivt != Type::Index {
            self.out.push_str(" : ");
            self.ty(ivt);
            self.out.push(' ');
        }
        let r = m.op(op).regions()[0];
        self.region(r, false, !parts.inits.is_empty());
        self.attr_dict(op, &[]);
        true
    }
}

// `scf.if %c [-> (..)] { .. } [else { .. }] {attrs}`.

impl Parser<'_> {
    fn parse_if(&mut self, b: &mut Built) -> PResult<()> {
        let cond = self.parse_operand()?;
        self.check_all(std::slice::from_ref(&cond), &Type::i1())?;
        let mut types = Vec::new();
        if self.c.eat("->") {
            types = self.parse_result_types()?;
        }
        let then_r = self.m.new_detached_region();
        self.parse_region(then_r, &[])?;
        self.ensure_terminator(then_r, "scf.yield");
        let else_r = self.m.new_detached_region();
        if self.c.eat_keyword("else") {
            self.parse_region(else_r, &[])?;
            self.ensure_terminator(else_r, "scf.yield");
        }
        b.regions.push(then_r);
        b.regions.push(else_r);
        self.parse_opt_attr_dict(b)?;
        b.operands(&[cond]);
        b.spec.result_types = types;
        Ok(())
    }
}

impl OpPrinter<'_> {
    fn print_if(&mut self, op: OpId) -> bool {
        let m = self.m;
        let d = m.op(op);
        if d.regions().len() != 2 || d.operands().len() != 1 {
            return false;
        }
        let name = self.op_name("scf.if");
        let _ = write!(self.out, "{name} ");
        self.value(d.operands()[0]);
        let results = d.results().to_vec();
        if !results.is_empty() {
            self.out.push_str(" -> (");
            self.types_of(&results);
            self.out.push(')');
        }
        self.out.push(' ');
        let (then_r, else_r) = (d.regions()[0], d.regions()[1]);
        let print_terms = !results.is_empty();
        self.region(then_r, false, print_terms);
        let else_nonempty = m
            .region_blocks(else_r)
            .iter()
            .any(|&b| m.first_op(b).is_some());
        if else_nonempty {
            self.out.push_str(" else ");
            self.region(else_r, false, print_terms);
        }
        self.attr_dict(op, &[]);
        true
    }
}

// `scf.while (%a = %init) : (T) -> R { .. } do { .. } attributes {..}`.

impl Parser<'_> {
    fn parse_while(&mut self, b: &mut Built) -> PResult<()> {
        let (names, inits) = self.parse_bound_args("argument")?;
        self.c.expect(":")?;
        let fty = self.parse_function_type()?;
        self.check_types(&inits, &fty.inputs)?;
        let args: Vec<(String, Type, usize)> = names
            .into_iter()
            .zip(&fty.inputs)
            .map(|((n, p), t)| (n, t.clone(), p))
            .collect();
        let before = self.m.new_detached_region();
        self.parse_region(before, &args)?;
        self.c.expect("do")?;
        let after = self.m.new_detached_region();
        self.parse_region(after, &[])?;
        b.regions.push(before);
        b.regions.push(after);
        self.parse_opt_attr_dict(b)?;
        if self.c.eat_keyword("attributes") {
            self.parse_opt_attr_dict(b)?;
        }
        b.operands(&inits);
        b.spec.result_types = fty.results;
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_while(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        if d.regions().len() != 2 {
            return false;
        }
        let Some(before) = m.entry_block(op, 0) else {
            return false;
        };
        let args = m.block_args(before).to_vec();
        if args.len() != operands.len() {
            return false;
        }
        let _ = write!(self.out, "{name} (");
        for (i, (&a, &init)) in args.iter().zip(&operands).enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.value(a);
            self.out.push_str(" = ");
            self.value(init);
        }
        self.out.push_str(") : ");
        self.sig(op);
        self.out.push(' ');
        self.region(d.regions()[0], false, true);
        self.out.push_str(" do ");
        self.region(d.regions()[1], true, true);
        if !d.attrs.is_empty() {
            self.out.push_str(" attributes");
            self.attr_dict(op, &[]);
        }
        true
    }
}

// `scf.condition(%c) %a {attrs} : T`.

impl Parser<'_> {
    pub(crate) fn parse_condition(&mut self, b: &mut Built) -> PResult<()> {
        self.c.expect("(")?;
        let cond = self.parse_operand()?;
        self.c.expect(")")?;
        self.check_all(std::slice::from_ref(&cond), &Type::i1())?;
        let args = self.parse_operand_list()?;
        self.parse_opt_attr_dict(b)?;
        if !args.is_empty() {
            self.c.expect(":")?;
            let types = self.parse_type_list()?;
            self.check_types(&args, &types)?;
        }
        b.operands(&[cond]);
        b.operands(&args);
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_condition(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        let Some((&cond, args)) = operands.split_first() else {
            return false;
        };
        let _ = write!(self.out, "{name}(");
        self.value(cond);
        self.out.push(')');
        if !args.is_empty() {
            self.out.push(' ');
            self.values(args);
        }
        self.attr_dict(op, &[]);
        if !args.is_empty() {
            self.out.push_str(" : ");
            self.types_of(args);
        }
        true
    }
}

// `scf.forall`, `scf.forall.in_parallel`, `scf.parallel`.

impl Parser<'_> {
    /// `(%a, %b)`: names with positions.
    fn parse_iv_names(&mut self) -> PResult<Vec<(String, usize)>> {
        self.c.expect("(")?;
        let mut out = Vec::new();
        if self.c.eat(")") {
            return Ok(out);
        }
        loop {
            self.c.skip_ws();
            let pos = self.c.pos();
            self.c.expect("%")?;
            let Some(n) = self.c.suffix_id() else {
                return self.c.err("expected induction variable name");
            };
            out.push((n.to_string(), pos));
            if self.c.eat(")") {
                return Ok(out);
            }
            self.c.expect(",")?;
        }
    }

    /// `(%a, 4)`: a parenthesised list of values and integers.
    fn parse_paren_mixed(&mut self) -> PResult<(Vec<i64>, Vec<Operand>)> {
        self.parse_mixed_list_in("(", ")")
    }

    pub(crate) fn parse_forall(&mut self, b: &mut Built) -> PResult<()> {
        let ivs = self.parse_iv_names()?;
        let n = ivs.len();
        let (lbs, ubs, steps) = if self.c.eat_keyword("in") {
            let ubs = self.parse_paren_mixed()?;
            ((vec![0; n], Vec::new()), ubs, (vec![1; n], Vec::new()))
        } else {
            self.c.expect("=")?;
            let lbs = self.parse_paren_mixed()?;
            if !self.c.eat_keyword("to") {
                return self.c.err("expected 'to'");
            }
            let ubs = self.parse_paren_mixed()?;
            if !self.c.eat_keyword("step") {
                return self.c.err("expected 'step'");
            }
            (lbs, ubs, self.parse_paren_mixed()?)
        };
        for (what, list) in [
            ("lower bounds", &lbs.0),
            ("upper bounds", &ubs.0),
            ("steps", &steps.0),
        ] {
            if list.len() != n {
                return self
                    .c
                    .err(format!("expected {n} {what}, found {}", list.len()));
            }
        }
        let (mut out_names, mut outs, mut types) = (Vec::new(), Vec::new(), Vec::new());
        if self.c.eat_keyword("shared_outs") {
            (out_names, outs) = self.parse_bound_args("shared output")?;
        }
        if self.c.eat("->") {
            types = self.parse_result_types()?;
        }
        if types.len() != outs.len() {
            return self.c.err(format!(
                "expected {} result types, found {}",
                outs.len(),
                types.len()
            ));
        }
        self.check_types(&outs, &types)?;
        let mut args: Vec<(String, Type, usize)> =
            ivs.into_iter().map(|(n, p)| (n, Type::Index, p)).collect();
        for ((name, pos), t) in out_names.into_iter().zip(&types) {
            args.push((name, t.clone(), pos));
        }
        let r = self.m.new_detached_region();
        self.parse_region(r, &args)?;
        self.ensure_in_parallel(r);
        b.regions.push(r);
        self.parse_opt_attr_dict(b)?;
        b.spec.segments = vec![
            lbs.1.len() as u32,
            ubs.1.len() as u32,
            steps.1.len() as u32,
            outs.len() as u32,
        ];
        b.operands(&lbs.1);
        b.operands(&ubs.1);
        b.operands(&steps.1);
        b.operands(&outs);
        b.spec
            .attrs
            .set("staticLowerBound", Attribute::dense_i64(lbs.0));
        b.spec
            .attrs
            .set("staticUpperBound", Attribute::dense_i64(ubs.0));
        b.spec
            .attrs
            .set("staticStep", Attribute::dense_i64(steps.0));
        b.spec.result_types = types;
        Ok(())
    }

    /// The `scf.forall.in_parallel` terminator MLIR's parser adds when the
    /// body does not end with one (with its own empty block).
    fn ensure_in_parallel(&mut self, r: crate::ir::RegionId) {
        let block = match self.m.region_blocks(r).first() {
            Some(&b) => b,
            None => self.m.add_block(r, &[]),
        };
        if self
            .m
            .last_op(block)
            .is_some_and(|o| self.m.op(o).is("scf.forall.in_parallel"))
        {
            return;
        }
        let loc = self.c.loc_at(self.c.pos());
        let op = self.m.build(
            crate::ir::OpSpec::new("scf.forall.in_parallel", loc),
            crate::ir::InsertPoint::BlockEnd(block),
        );
        let inner = self.m.new_detached_region();
        self.m.adopt_regions(op, &[inner]);
        self.m.add_block(inner, &[]);
    }

    /// `scf.forall.in_parallel { ... }`.
    pub(crate) fn parse_in_parallel(&mut self, b: &mut Built) -> PResult<()> {
        let r = self.m.new_detached_region();
        self.parse_region(r, &[])?;
        if self.m.region_blocks(r).is_empty() {
            self.m.add_block(r, &[]);
        }
        b.regions.push(r);
        self.parse_opt_attr_dict(b)
    }

    /// `scf.parallel (%i) = (%lb) to (%ub) step (%s) [init (%x)] [-> (T)] { }`.
    pub(crate) fn parse_parallel(&mut self, b: &mut Built) -> PResult<()> {
        let ivs = self.parse_iv_names()?;
        self.c.expect("=")?;
        let lbs = self.parse_paren_operands()?;
        if !self.c.eat_keyword("to") {
            return self.c.err("expected 'to'");
        }
        let ubs = self.parse_paren_operands()?;
        if !self.c.eat_keyword("step") {
            return self.c.err("expected 'step'");
        }
        let steps = self.parse_paren_operands()?;
        let n = ivs.len();
        if lbs.len() != n || ubs.len() != n || steps.len() != n {
            return self
                .c
                .err(format!("expected {n} lower bounds, upper bounds and steps"));
        }
        let mut inits = Vec::new();
        if self.c.eat_keyword("init") {
            inits = self.parse_paren_operands()?;
        }
        let mut types = Vec::new();
        if self.c.eat("->") {
            types = self.parse_result_types()?;
        }
        self.check_types(&inits, &types)?;
        let args: Vec<(String, Type, usize)> =
            ivs.into_iter().map(|(n, p)| (n, Type::Index, p)).collect();
        let r = self.m.new_detached_region();
        self.parse_region(r, &args)?;
        self.ensure_terminator(r, "scf.reduce");
        b.regions.push(r);
        self.parse_opt_attr_dict(b)?;
        b.spec.segments = vec![n as u32, n as u32, n as u32, inits.len() as u32];
        b.operands(&lbs);
        b.operands(&ubs);
        b.operands(&steps);
        b.operands(&inits);
        b.spec.result_types = types;
        Ok(())
    }

    /// `(%a, %b)`.
    fn parse_paren_operands(&mut self) -> PResult<Vec<Operand>> {
        self.c.expect("(")?;
        let ops = self.parse_operand_list()?;
        self.c.expect(")")?;
        Ok(ops)
    }
}

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
