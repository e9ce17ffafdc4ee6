//! Reading `scf.forall`, `scf.forall.in_parallel` and `scf.parallel`
//! (custom parsers upstream).
//!
//! `scf.forall` stores MLIR's properties: dynamic lower bounds, upper
//! bounds, steps and `shared_outs` as four operand segments, and
//! `staticLowerBound`/`staticUpperBound`/`staticStep` arrays
//! ([`DYNAMIC`] where the bound is a value); the normalized form
//! `in (ubs)` stands for lower bounds 0 and steps 1.

use crate::ir::{Attribute, Type};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::{Operand, Parser};

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
