//! Reading `linalg.reduce` (custom parser upstream): `ins(..) outs(..)
//! dimensions = [..]` with its combiner either as a region with block
//! arguments, `(%in: T, %init: T) { .. }`, or in the short form
//! `{ arith.addf }` (one op applied to the block arguments, whose result is
//! yielded), which is stored as the region MLIR builds for it.
//!
//! Storage: inputs then inits as two operand segments, `dimensions` as a
//! dense `i64` array, one result per tensor init.
//!
//! Printing `linalg.reduce` as `ReduceOp::print` does: the short form
//! `{ arith.addf }` when the combiner is one op applied to (init, inputs)
//! whose result is yielded, else the block arguments on a new line and the
//! region.
//! `linalg.yield` is an operand list ([`super::shapes`]).

use crate::ir::{Attribute, InsertPoint, OpId, OpSpec, Type};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Operand;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;

/// The custom forms of the dialect's ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `linalg.reduce ins(..) outs(..) dimensions = [..] (%in: T, %init: T) { }`.
    Reduce,
}

/// The form of `linalg.<op>` (`op` without the dialect prefix).
pub(super) fn form(op: &str) -> Option<super::Form> {
    Some(match op {
        "reduce" => super::Form::Linalg(Form::Reduce),
        "yield" => super::Form::Shape(super::shapes::Form::OperandList),
        _ => return None,
    })
}

impl Parser<'_> {
    /// Reads the rest of a `linalg` op in custom form (after its name).
    pub(crate) fn parse_linalg_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::Reduce => self.parse_linalg_reduce(b),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints a `linalg` op in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_linalg_op(&mut self, op: OpId, form: Form, _name: &str) -> bool {
        match form {
            Form::Reduce => self.print_linalg_reduce(op),
        }
    }
}

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

impl OpPrinter<'_> {
    pub(crate) fn print_linalg_reduce(&mut self, op: OpId) -> bool {
        let m = self.module();
        let d = m.op(op);
        let (Some(&r), 2) = (d.regions().first(), d.segments.len()) else {
            return false;
        };
        let Some(body) = m.region_blocks(r).first().copied() else {
            return false;
        };
        let Some(dims) = d.attr("dimensions").and_then(Attribute::as_int_array) else {
            return false;
        };
        let args = m.block_args(body).to_vec();
        let ops: Vec<OpId> = m.block_ops(body).collect();
        // The payload of the short form: operands (init, inputs...).
        let payload = match ops.as_slice() {
            [p, y] if !args.is_empty() => {
                let pd = m.op(*p);
                let mut expected = vec![args[args.len() - 1]];
                expected.extend_from_slice(&args[..args.len() - 1]);
                let yields_it = m.op(*y).is("linalg.yield") && m.op(*y).operands() == pd.results();
                (pd.operands() == expected.as_slice()
                    && pd.results().len() == 1
                    && pd.attrs.is_empty()
                    && pd.regions().is_empty()
                    && yields_it)
                    .then_some(*p)
            }
            _ => None,
        };
        self.push("linalg.reduce");
        if let Some(p) = payload {
            self.push(" { ");
            self.push(m.op(p).name());
            self.push(" }");
        }
        for (kw, seg) in [("ins", 0), ("outs", 1)] {
            let vs = d.segment(seg).to_vec();
            self.push(&format!(" {kw}("));
            self.print_values(&vs);
            if !vs.is_empty() {
                self.push(" : ");
                self.print_types_of(&vs);
            }
            self.push(")");
        }
        let list: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
        self.push(&format!(" dimensions = [{}]", list.join(", ")));
        self.print_attr_dict(op, &["dimensions"]);
        if payload.is_none() {
            self.indent_in();
            self.print_newline();
            self.push("(");
            for (i, &a) in args.iter().enumerate() {
                if i > 0 {
                    self.push(", ");
                }
                self.print_values(&[a]);
                self.push(": ");
                let t = m.value_type(a).clone();
                let mut s = String::new();
                crate::print::write_type(&mut s, &t);
                self.push(&s);
            }
            self.push(") ");
            self.print_region(r, false, true);
            self.indent_out();
        }
        true
    }
}
