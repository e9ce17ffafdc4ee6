//! Reading `linalg.reduce` (custom parser upstream): `ins(..) outs(..)
//! dimensions = [..]` with its combiner either as a region with block
//! arguments, `(%in: T, %init: T) { .. }`, or in the short form
//! `{ arith.addf }` (one op applied to the block arguments, whose result is
//! yielded), which is stored as the region MLIR builds for it.
//!
//! Storage: inputs then inits as two operand segments, `dimensions` as a
//! dense `i64` array, one result per tensor init.

use crate::ir::{Attribute, InsertPoint, OpSpec, Type};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::{Operand, Parser};

impl Parser<'_> {
    /// `keyword(%a, %b : T, U)`.
    fn parse_typed_group(&mut self, keyword: &str) -> PResult<(Vec<Operand>, Vec<Type>)> {
        if !self.c.eat_keyword(keyword) {
            let found = self.c.describe_next();
            return self.c.err(format!("expected '{keyword}', found {found}"));
        }
        let (mut segments, mut ops) = (Vec::new(), Vec::new());
        self.parse_group(&mut segments, &mut ops)?;
        let types = ops.iter().map(|o| self.m.value_type(o.v).clone()).collect();
        Ok((ops, types))
    }

    pub(crate) fn parse_linalg_reduce(&mut self, b: &mut Built) -> PResult<()> {
        let mut short = None;
        if self.c.eat("{") {
            let name = self.c.expect_ident("an operation name")?.to_string();
            self.c.expect("}")?;
            short = Some(name);
        }
        let (ins, in_types) = self.parse_typed_group("ins")?;
        let (outs, out_types) = self.parse_typed_group("outs")?;
        if !self.c.eat_keyword("dimensions") {
            let found = self.c.describe_next();
            return self.c.err(format!("expected 'dimensions', found {found}"));
        }
        self.c.expect("=")?;
        let dims = self.parse_int_array("expected the reduced dimensions, e.g. [0]")?;
        self.parse_opt_attr_dict(b)?;
        let elem = |t: &Type| t.element_type().cloned().unwrap_or_else(|| t.clone());
        let arg_types: Vec<Type> = in_types.iter().chain(&out_types).map(elem).collect();
        let r = self.m.new_detached_region();
        match short {
            Some(name) => {
                let block = self.m.add_block(r, &arg_types);
                // The payload takes (init, inputs...), as upstream's
                // addBodyWithPayloadOp builds it for a reduction.
                let mut args = self.m.block_args(block).to_vec();
                args.rotate_right(1);
                let loc = b.spec.loc;
                let res_ty = out_types.first().map(elem).unwrap_or(Type::None);
                let op = self.m.build(
                    OpSpec::new(name, loc).operands(args).results([res_ty]),
                    InsertPoint::BlockEnd(block),
                );
                let v = self.m.op(op).results().to_vec();
                self.m.build(
                    OpSpec::new("linalg.yield", loc).operands(v),
                    InsertPoint::BlockEnd(block),
                );
            }
            None => {
                let args = self.parse_block_arg_list()?;
                self.parse_region(r, &args)?;
            }
        }
        b.regions.push(r);
        b.spec.segments = vec![ins.len() as u32, outs.len() as u32];
        b.operands(&ins);
        b.operands(&outs);
        b.spec.attrs.set("dimensions", Attribute::dense_i64(dims));
        b.spec.result_types = out_types
            .into_iter()
            .filter(|t| matches!(t, Type::Tensor { .. }))
            .collect();
        Ok(())
    }
}
