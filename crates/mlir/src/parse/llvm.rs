//! Reading the few `llvm` dialect ops the corpus writes in custom form
//! around HIVM code: `llvm.mlir.constant(1 : i64) : i64` (the value kept
//! as `value`) and `llvm.alloca %n x T {attrs} : (i64) -> !llvm.ptr` (the
//! element type kept as `elem_type`), `llvm.load`/`llvm.store` (with
//! `volatile`). Other `llvm` ops read through the
//! structured reader or in generic form.

use crate::ir::Attribute;
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Parser;

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
