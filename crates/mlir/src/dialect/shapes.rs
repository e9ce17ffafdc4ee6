//! Assembly shapes several dialects share: an operand list without
//! results (`func.return`, `scf.yield`, `memref.dealloc`, ...), one result
//! of the operands' type (arith and math arithmetic), and casts (`%a : T
//! to U`, in arith, memref and vector). Each dialect's table
//! ([`super::custom_form`]) names the shape of its ops.

use std::fmt::Write;

use crate::ir::{Attribute, OpId};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;

/// The shared shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `name %a, %b {attrs} : T, U` without results.
    OperandList,
    /// `name %a, %b {attrs} : T` with one result of type `T`.
    SameType,
    /// `name %a {attrs} : T to U` (lists allowed on both sides).
    Cast,
}

impl Parser<'_> {
    /// Reads the rest of an op of a shared shape in custom form (after its name).
    pub(crate) fn parse_shape_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::OperandList => self.parse_operand_list_form(b),
            Form::SameType => self.parse_same_type(b),
            Form::Cast => self.parse_cast(b),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints an op of a shared shape in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_shape_op(&mut self, op: OpId, form: Form, name: &str) -> bool {
        match form {
            Form::OperandList => self.print_operand_list_form(op, name),
            Form::SameType => self.print_same_type(op, name),
            Form::Cast => self.print_cast(op, name),
        }
    }
}

// `name %a, %b {attrs} : T, U` without results: return, yield, dealloc, mark, ...

impl Parser<'_> {
    pub(crate) fn parse_operand_list_form(&mut self, b: &mut Built) -> PResult<()> {
        let ops = self.parse_operand_list()?;
        self.parse_opt_attr_dict(b)?;
        if !ops.is_empty() {
            self.c.expect(":")?;
            let types = self.parse_type_list()?;
            self.check_types(&ops, &types)?;
        }
        b.operands(&ops);
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_operand_list_form(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        if !d.regions().is_empty() || !d.results().is_empty() {
            return false;
        }
        self.operand_list_form(op, name, &operands);
        true
    }
}

// `name %a, %b {overflow/fastmath} {attrs} : T`, one result of type `T`: arith and math arithmetic.

impl Parser<'_> {
    pub(crate) fn parse_same_type(&mut self, b: &mut Built) -> PResult<()> {
        let ops = self.parse_operand_list()?;
        if ops.is_empty() {
            return self.c.err("expected operand");
        }
        self.parse_modifiers(b)?;
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let ty = self.parse_type()?;
        self.check_types(&ops, &vec![ty.clone(); ops.len()])?;
        b.operands(&ops);
        b.spec.result_types = vec![ty];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_same_type(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        let result_ty = |i: usize| d.result(i).map(|v| m.value_type(v));
        let Some(t) = result_ty(0) else { return false };
        self.out.push_str(name);
        self.out.push(' ');
        self.values(&operands);
        for n in ["overflowFlags", "fastmath"] {
            if let Some(Attribute::Opaque(text)) = d.attr(n) {
                let _ = write!(self.out, " {text}");
            }
        }
        self.attr_dict(op, &["overflowFlags", "fastmath"]);
        self.out.push_str(" : ");
        self.ty(t);
        true
    }
}

// `name %a {attrs} : T to U` (lists on both sides): casts of arith, memref, vector.

impl Parser<'_> {
    pub(crate) fn parse_cast(&mut self, b: &mut Built) -> PResult<()> {
        let ops = self.parse_operand_list()?;
        if ops.is_empty() && b.spec.name != "builtin.unrealized_conversion_cast" {
            return self.c.err("expected operand");
        }
        self.parse_opt_attr_dict(b)?;
        if !ops.is_empty() {
            self.c.expect(":")?;
            let types = self.parse_type_list()?;
            self.check_types(&ops, &types)?;
        }
        self.c.expect("to")?;
        b.spec.result_types = self.parse_type_list()?;
        b.operands(&ops);
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_cast(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        self.operand_list_form(op, name, &operands);
        self.out.push_str(" to ");
        self.types_of(d.results());
        true
    }
}
