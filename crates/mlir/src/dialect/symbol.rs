//! The `symbol` ops in custom form: `symbol.symbolic_int @s0 [%a],
//! affine_map<...>` (its `symbol_name`, `int_symbols` operands and
//! `int_expressions` map) and `symbol.bind_symbolic_shape %v, [%s0],
//! affine_map<...> : T` (value and symbols as two segments, the
//! `shape_expressions` map).

use crate::ir::OpId;
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Operand;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;

/// The custom forms of the dialect's ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `symbol.symbolic_int @s0 [%a], affine_map<..> {attrs} : index`.
    SymbolicInt,
    /// `symbol.bind_symbolic_shape %v, [%s0], affine_map<..> : T`.
    BindSymbolicShape,
}

/// The form of `symbol.<op>` (`op` without the dialect prefix).
pub(super) fn form(op: &str) -> Option<super::Form> {
    Some(match op {
        "symbolic_int" => super::Form::Symbol(Form::SymbolicInt),
        "bind_symbolic_shape" => super::Form::Symbol(Form::BindSymbolicShape),
        _ => return None,
    })
}

impl Parser<'_> {
    /// Reads the rest of a `symbol` op in custom form (after its name).
    pub(crate) fn parse_symbol_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::SymbolicInt => self.parse_symbolic_int(b),
            Form::BindSymbolicShape => self.parse_bind_symbolic_shape(b),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints a `symbol` op in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_symbol_op(&mut self, op: OpId, form: Form, name: &str) -> bool {
        match form {
            Form::SymbolicInt => self.print_symbolic_int(op, name),
            Form::BindSymbolicShape => self.print_bind_symbolic_shape(op, name),
        }
    }
}

// `symbol.symbolic_int @s0 [%a], affine_map<..> {attrs} : T`.

impl Parser<'_> {
    /// `symbol.symbolic_int @name [%a, ...], affine_map<...> {attrs} : T`.
    pub(crate) fn parse_symbolic_int(&mut self, b: &mut Built) -> PResult<()> {
        self.c.skip_ws();
        if self.c.peek() != Some(b'@') {
            return self.c.err("expected a symbol name like @s0");
        }
        let name = self.parse_attribute()?;
        b.spec.attrs.set("symbol_name", name);
        let syms = self.parse_symbol_operands()?;
        self.c.expect(",")?;
        let map = self.parse_attribute()?;
        b.spec.attrs.set("int_expressions", map);
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let ty = self.parse_type()?;
        b.operands(&syms);
        b.spec.result_types = vec![ty];
        Ok(())
    }
}

impl OpPrinter<'_> {
    /// `symbol.symbolic_int @s0 [%a], affine_map<...> {attrs} : T`.
    pub(crate) fn print_symbolic_int(&mut self, op: OpId, name: &str) -> bool {
        let m = self.module();
        let d = m.op(op);
        let (Some(sym), Some(map), Some(res)) = (
            d.attr("symbol_name"),
            d.attr("int_expressions"),
            d.result(0),
        ) else {
            return false;
        };
        self.push(&format!("{name} {sym} ["));
        self.print_values(d.operands());
        self.push("], ");
        self.print_attr(map);
        self.print_attr_dict(op, &["symbol_name", "int_expressions"]);
        self.push(" : ");
        self.print_type(m.value_type(res));
        true
    }
}

// `symbol.bind_symbolic_shape %v, [%s0], affine_map<..> {attrs} : T`.

impl Parser<'_> {
    /// `symbol.bind_symbolic_shape %v, [%s0, ...], affine_map<...> {attrs} : T`.
    pub(crate) fn parse_bind_symbolic_shape(&mut self, b: &mut Built) -> PResult<()> {
        let v = self.parse_operand()?;
        self.c.expect(",")?;
        let syms = self.parse_symbol_operands()?;
        self.c.expect(",")?;
        let map = self.parse_attribute()?;
        b.spec.attrs.set("shape_expressions", map);
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let ty = self.parse_type()?;
        self.check_types(std::slice::from_ref(&v), &[ty])?;
        b.spec.segments = vec![1, syms.len() as u32];
        b.operands(&[v]);
        b.operands(&syms);
        Ok(())
    }
}

impl OpPrinter<'_> {
    /// `symbol.bind_symbolic_shape %v, [%s0, ...], affine_map<...> : T`.
    pub(crate) fn print_bind_symbolic_shape(&mut self, op: OpId, name: &str) -> bool {
        let m = self.module();
        let d = m.op(op);
        let (Some(map), Some(&v), true) = (
            d.attr("shape_expressions"),
            d.segment(0).first(),
            d.segments.len() == 2,
        ) else {
            return false;
        };
        self.push(&format!("{name} "));
        self.print_values(&[v]);
        self.push(", [");
        self.print_values(d.segment(1));
        self.push("], ");
        self.print_attr(map);
        self.print_attr_dict(op, &["shape_expressions"]);
        self.push(" : ");
        self.print_type(m.value_type(v));
        true
    }
}

impl Parser<'_> {
    /// `[%s0, ...]`, possibly empty: the symbol operands of a shape map.
    fn parse_symbol_operands(&mut self) -> PResult<Vec<Operand>> {
        self.c.expect("[")?;
        if self.c.eat("]") {
            return Ok(Vec::new());
        }
        let syms = self.parse_operand_list()?;
        self.c.expect("]")?;
        Ok(syms)
    }
}
