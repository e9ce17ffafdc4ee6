//! The few `llvm` dialect ops the corpus writes in custom form around
//! HIVM code: `llvm.mlir.constant(1 : i64) : i64` (the value kept as
//! `value`), `llvm.alloca %n x T {attrs} : (i64) -> !llvm.ptr` (the
//! element type kept as `elem_type`), `llvm.load`/`llvm.store` (with
//! `volatile`). Other `llvm` ops read through the structured reader or in
//! generic form.

use crate::ir::{Attribute, OpId};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;

/// The custom forms of the dialect's ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `llvm.mlir.constant(1 : i64) : i64`.
    Constant,
    /// `llvm.alloca %n x T : (i64) -> !llvm.ptr`.
    Alloca,
    /// `llvm.load volatile %p : !llvm.ptr -> i32`.
    Load,
    /// `llvm.store volatile %v, %p : i32, !llvm.ptr`.
    Store,
}

/// The form of `llvm.<op>` (`op` without the dialect prefix).
pub(super) fn form(op: &str) -> Option<super::Form> {
    Some(match op {
        "mlir.constant" => super::Form::Llvm(Form::Constant),
        "alloca" => super::Form::Llvm(Form::Alloca),
        "load" => super::Form::Llvm(Form::Load),
        "store" => super::Form::Llvm(Form::Store),
        _ => return None,
    })
}

impl Parser<'_> {
    /// Reads the rest of an `llvm` op in custom form (after its name).
    pub(crate) fn parse_llvm_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::Constant => self.parse_llvm_constant(b),
            Form::Alloca => self.parse_llvm_alloca(b),
            Form::Load => self.parse_llvm_access(b, false),
            Form::Store => self.parse_llvm_access(b, true),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints an `llvm` op in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_llvm_op(&mut self, op: OpId, form: Form, name: &str) -> bool {
        match form {
            Form::Constant => self.print_llvm_constant(op, name),
            Form::Alloca => self.print_llvm_alloca(op, name),
            Form::Load => self.print_llvm_access(op, name, false),
            Form::Store => self.print_llvm_access(op, name, true),
        }
    }
}

// `llvm.mlir.constant(attr) {attrs} : T`.

impl Parser<'_> {
    /// `llvm.mlir.constant(attr) {attrs} : T`.
    pub(crate) fn parse_llvm_constant(&mut self, b: &mut Built) -> PResult<()> {
        self.c.expect("(")?;
        let value = self.parse_attribute()?;
        self.c.expect(")")?;
        b.spec.attrs.set("value", value);
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        b.spec.result_types = vec![self.parse_type()?];
        Ok(())
    }
}

impl OpPrinter<'_> {
    /// `llvm.mlir.constant(1 : i64) : i64`.
    pub(crate) fn print_llvm_constant(&mut self, op: OpId, name: &str) -> bool {
        let m = self.module();
        let d = m.op(op);
        let (Some(value), Some(r)) = (d.attr("value"), d.result(0)) else {
            return false;
        };
        self.push(&format!("{name}("));
        self.print_attr(value);
        self.push(")");
        self.print_attr_dict(op, &["value"]);
        self.push(" : ");
        self.print_type(m.value_type(r));
        true
    }
}

// `llvm.load volatile? %p : P -> T` and `llvm.store volatile? %v, %p : T, P`.

impl Parser<'_> {
    /// `llvm.load volatile? %p {attrs} : P -> T` and
    /// `llvm.store volatile? %v, %p {attrs} : T, P` (`volatile` kept as the
    /// unit attribute `volatile_`).
    pub(crate) fn parse_llvm_access(&mut self, b: &mut Built, store: bool) -> PResult<()> {
        if self.c.eat_keyword("volatile") {
            b.spec.attrs.set("volatile_", Attribute::Unit);
        }
        let first = self.parse_operand()?;
        let mut ops = vec![first];
        if store {
            self.c.expect(",")?;
            ops.push(self.parse_operand()?);
        }
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        if store {
            let types = self.parse_type_list()?;
            self.check_types(&ops, &types)?;
        } else {
            let pty = self.parse_type()?;
            self.check_types(&ops, &[pty])?;
            self.c.expect("->")?;
            b.spec.result_types = vec![self.parse_type()?];
        }
        b.operands(&ops);
        Ok(())
    }
}

impl OpPrinter<'_> {
    /// `llvm.load volatile %p : P -> T` / `llvm.store volatile %v, %p : T, P`.
    pub(crate) fn print_llvm_access(&mut self, op: OpId, name: &str, store: bool) -> bool {
        let m = self.module();
        let d = m.op(op);
        let ops = d.operands().to_vec();
        if ops.len() != 1 + usize::from(store) || d.results().len() != usize::from(!store) {
            return false;
        }
        self.push(name);
        if d.has_attr("volatile_") {
            self.push(" volatile");
        }
        self.push(" ");
        self.print_values(&ops);
        self.print_attr_dict(op, &["volatile_"]);
        self.push(" : ");
        if store {
            self.print_types_of(&ops);
        } else {
            self.print_type(m.value_type(ops[0]));
            self.push(" -> ");
            self.print_type(m.value_type(d.results()[0]));
        }
        true
    }
}

// `llvm.alloca %n x T {attrs} : (i64) -> !llvm.ptr`.

impl Parser<'_> {
    /// `llvm.alloca %n x T {attrs} : (i64) -> !llvm.ptr`.
    pub(crate) fn parse_llvm_alloca(&mut self, b: &mut Built) -> PResult<()> {
        let n = self.parse_operand()?;
        if !self.c.eat_keyword("x") {
            return self.c.err("expected 'x' after the element count");
        }
        let elem = self.parse_type()?;
        b.spec.attrs.set("elem_type", Attribute::Type(elem));
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let fty = self.parse_function_type()?;
        self.check_types(std::slice::from_ref(&n), &fty.inputs)?;
        if fty.results.len() != 1 {
            return self.c.err("llvm.alloca has one result");
        }
        b.operands(&[n]);
        b.spec.result_types = fty.results;
        Ok(())
    }
}

impl OpPrinter<'_> {
    /// `llvm.alloca %n x T : (i64) -> !llvm.ptr`.
    pub(crate) fn print_llvm_alloca(&mut self, op: OpId, name: &str) -> bool {
        let m = self.module();
        let d = m.op(op);
        let (Some(Attribute::Type(elem)), Some(n), Some(r), 1) = (
            d.attr("elem_type"),
            d.operand(0),
            d.result(0),
            d.operands().len(),
        ) else {
            return false;
        };
        self.push(&format!("{name} "));
        self.print_values(&[n]);
        self.push(" x ");
        self.print_type(elem);
        self.print_attr_dict(op, &["elem_type"]);
        self.push(" : (");
        self.print_type(m.value_type(n));
        self.push(") -> ");
        self.print_type(m.value_type(r));
        true
    }
}
