//! The `arith` ops in custom form: constants, comparisons (predicates in
//! MLIR's numbering), `select`; arithmetic and casts use the shared
//! shapes ([`super::shapes`]).

use std::fmt::Write;

use crate::ir::{Attribute, OpId, Type};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;
use crate::print::types::write_attr;

/// `arith.cmpi` predicates in MLIR's numbering.
pub const CMPI_PREDICATES: [&str; 10] = [
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
];

/// `arith.cmpf` predicates in MLIR's numbering.
pub const CMPF_PREDICATES: [&str; 16] = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
    "une", "uno", "true",
];

/// The custom forms of the dialect's ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `arith.constant {attrs} value`.
    Constant,
    /// `arith.cmpi` / `arith.cmpf`: `pred, %a, %b : T`.
    Cmp,
    /// `arith.select %c, %a, %b : [C,] T`.
    Select,
}

/// The form of `arith.<op>` (`op` without the dialect prefix).
pub(super) fn form(op: &str) -> Option<super::Form> {
    Some(match op {
        "constant" => super::Form::Arith(Form::Constant),
        "cmpi" | "cmpf" => super::Form::Arith(Form::Cmp),
        "select" => super::Form::Arith(Form::Select),
        "addi" | "subi" | "muli" | "divsi" | "divui" | "remsi" | "remui" | "andi" | "ori"
        | "xori" | "maxsi" | "minsi" | "maxui" | "minui" | "shli" | "shrsi" | "shrui"
        | "ceildivsi" | "ceildivui" | "floordivsi" | "addf" | "subf" | "mulf" | "divf" | "remf"
        | "maximumf" | "minimumf" | "maxnumf" | "minnumf" | "negf" => {
            super::Form::Shape(super::shapes::Form::SameType)
        }
        "index_cast" | "index_castui" | "extf" | "truncf" | "extsi" | "extui" | "trunci"
        | "sitofp" | "uitofp" | "fptosi" | "fptoui" | "bitcast" => {
            super::Form::Shape(super::shapes::Form::Cast)
        }
        _ => return None,
    })
}

impl Parser<'_> {
    /// Reads the rest of an `arith` op in custom form (after its name).
    pub(crate) fn parse_arith_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::Constant => self.parse_constant(b),
            Form::Cmp => self.parse_cmp(b),
            Form::Select => self.parse_select(b),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints an `arith` op in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_arith_op(&mut self, op: OpId, form: Form, name: &str) -> bool {
        match form {
            Form::Constant => self.print_constant(op, name),
            Form::Cmp => self.print_cmp(op, name),
            Form::Select => self.print_select(op, name),
        }
    }
}

// `arith.constant {attrs} value`.

impl Parser<'_> {
    fn parse_constant(&mut self, b: &mut Built) -> PResult<()> {
        self.parse_opt_attr_dict(b)?;
        self.c.skip_ws();
        let p = self.c.pos();
        let is_elements = ["dense", "dense_resource", "sparse"].iter().any(|k| {
            self.c.looking_at_keyword(k) && {
                self.c.eat_keyword(k);
                let lt = self.c.at_lt();
                self.c.reset(p);
                lt
            }
        });
        if is_elements {
            // Elements constants: `dense<...> : T`, the type gives the result.
            let word = self.c.ident().unwrap_or_default();
            let text = self.c.balanced()?.to_string();
            // As MLIR prints it: no space before the body.
            let mut kw = format!("{word}{text}");
            self.c.expect(":")?;
            let ty = self.parse_type()?;
            if let (Some(elem), "dense") = (ty.element_type(), word) {
                if let Some(c) =
                    crate::parse::dense::canonical_dense(&text[1..text.len() - 1], elem)
                {
                    kw = format!("dense<{c}>");
                }
            }
            b.spec
                .attrs
                .set("value", Attribute::Opaque(format!("{kw} : {ty}")));
            b.spec.result_types = vec![ty];
            return Ok(());
        }
        let value = self.parse_attribute()?;
        let ty = match &value {
            Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } => ty.clone(),
            Attribute::Bool(_) => Type::i1(),
            _ => return self.c.err_at(p, "expected a constant value"),
        };
        b.spec.attrs.set("value", value);
        b.spec.result_types = vec![ty];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_constant(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let Some(v) = d.attr("value") else {
            return false;
        };
        self.out.push_str(name);
        self.attr_dict(op, &["value"]);
        self.out.push(' ');
        write_attr(&mut self.out, v, false);
        true
    }
}

// `arith.cmpi`/`cmpf`: `pred, %a, %b {attrs} : T`.

impl Parser<'_> {
    pub(crate) fn parse_cmp(&mut self, b: &mut Built) -> PResult<()> {
        let table: &[&str] = if b.spec.name == "arith.cmpi" {
            &CMPI_PREDICATES
        } else {
            &CMPF_PREDICATES
        };
        self.c.skip_ws();
        let p = self.c.pos();
        let pred = self.c.expect_ident("comparison predicate")?;
        let Some(i) = table.iter().position(|&t| t == pred) else {
            return self
                .c
                .err_at(p, format!("unknown comparison predicate \"{pred}\""));
        };
        b.spec.attrs.set("predicate", Attribute::i64(i as i64));
        self.c.expect(",")?;
        let ops = self.parse_operand_list()?;
        self.parse_modifiers(b)?;
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let ty = self.parse_type()?;
        self.check_types(&ops, &[ty.clone(), ty.clone()])?;
        b.operands(&ops);
        b.spec.result_types = vec![bool_like(&ty)];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_cmp(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        let table: &[&str] = if d.name() == "arith.cmpi" {
            &CMPI_PREDICATES
        } else {
            &CMPF_PREDICATES
        };
        let Some(p) = d.attr("predicate").and_then(Attribute::as_int) else {
            return false;
        };
        let Some(pred) = usize::try_from(p).ok().and_then(|p| table.get(p)) else {
            return false;
        };
        if operands.len() != 2 {
            return false;
        }
        let _ = write!(self.out, "{name} {pred}, ");
        self.values(&operands);
        if let Some(Attribute::Opaque(text)) = d.attr("fastmath") {
            let _ = write!(self.out, " {text}");
        }
        self.attr_dict(op, &["predicate", "fastmath"]);
        self.out.push_str(" : ");
        let t = m.value_type(operands[0]);
        self.ty(t);
        true
    }
}

// `arith.select %c, %a, %b {attrs} : [C,] T`.

impl Parser<'_> {
    pub(crate) fn parse_select(&mut self, b: &mut Built) -> PResult<()> {
        let ops = self.parse_operand_list()?;
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let types = self.parse_type_list()?;
        let (cty, ty) = match types.as_slice() {
            [t] => (Type::i1(), t.clone()),
            [c, t] => (c.clone(), t.clone()),
            _ => return self.c.err("expected one or two types"),
        };
        self.check_types(&ops, &[cty, ty.clone(), ty.clone()])?;
        b.operands(&ops);
        b.spec.result_types = vec![ty];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_select(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        if operands.len() != 3 {
            return false;
        }
        self.out.push_str(name);
        self.out.push(' ');
        self.values(&operands);
        self.attr_dict(op, &[]);
        self.out.push_str(" : ");
        let ct = m.value_type(operands[0]);
        if *ct != Type::i1() {
            self.ty(ct);
            self.out.push_str(", ");
        }
        let t = m.value_type(operands[1]);
        self.ty(t);
        true
    }
}

/// `i1` shaped like `ty` (the result type of a comparison).
fn bool_like(ty: &Type) -> Type {
    match ty {
        Type::Vector(v) => Type::Vector(crate::ir::VectorType {
            elem: Box::new(Type::i1()),
            ..v.clone()
        }),
        Type::Tensor { shape, .. } => Type::Tensor {
            shape: shape.clone(),
            elem: Box::new(Type::i1()),
            encoding: None,
        },
        _ => Type::i1(),
    }
}
