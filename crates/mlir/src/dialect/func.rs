//! `func.func` (also the syntax of `transform.named_sequence`) and
//! `func.call` in custom form; `func.return` is an operand list
//! ([`super::shapes`]).

use std::fmt::Write;

use crate::ir::{Attribute, FunctionType, OpId, Type, ValueId};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;
use crate::print::types::{write_result_types, write_symbol};

/// The custom forms of the dialect's ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `func.func @f(%a: T) -> R attributes {..} { .. }`.
    Func,
    /// `func.call @f(%a) : (T) -> R`.
    Call,
}

/// The form of `func.<op>` (`op` without the dialect prefix).
pub(super) fn form(op: &str) -> Option<super::Form> {
    Some(match op {
        "func" => super::Form::Func(Form::Func),
        "call" => super::Form::Func(Form::Call),
        "return" => super::Form::Shape(super::shapes::Form::OperandList),
        _ => return None,
    })
}

impl Parser<'_> {
    /// Reads the rest of a `func` op in custom form (after its name).
    pub(crate) fn parse_func_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::Func => self.parse_func(b),
            Form::Call => self.parse_call(b),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints a `func` op in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_func_op(&mut self, op: OpId, form: Form, name: &str) -> bool {
        match form {
            Form::Func => self.print_func(op),
            Form::Call => self.print_call(op, name),
        }
    }
}

// `func.func`.

impl Parser<'_> {
    fn parse_func(&mut self, b: &mut Built) -> PResult<()> {
        for vis in ["private", "public", "nested"] {
            if self.c.eat_keyword(vis) {
                b.spec
                    .attrs
                    .set("sym_visibility", Attribute::String(vis.into()));
            }
        }
        self.parse_func_after_keywords(b, false, Some("func"))
            .map(|_| ())
    }

    /// Reads a function's `@name(args) -> results attributes {..} {body}`
    /// (the syntax MLIR's function interface shares), setting `sym_name`,
    /// `function_type`, `arg_attrs`, `res_attrs` and the body region.
    /// With `variadic`, a trailing `...` argument is read; the result says
    /// whether there was one. `body_dialect` is the dialect of the body's
    /// unprefixed op names.
    pub(crate) fn parse_func_after_keywords(
        &mut self,
        b: &mut Built,
        variadic: bool,
        body_dialect: Option<&'static str>,
    ) -> PResult<bool> {
        let mut is_variadic = false;
        let sym = self.parse_symbol_name()?;
        b.spec.attrs.set("sym_name", Attribute::String(sym));
        self.c.expect("(")?;
        let mut args: Vec<(String, Type, usize)> = Vec::new();
        let mut inputs = Vec::new();
        let mut arg_attrs = Vec::new();
        let mut named = None;
        if !self.c.eat(")") {
            loop {
                self.c.skip_ws();
                if variadic && self.c.eat("...") {
                    is_variadic = true;
                    self.c.expect(")")?;
                    break;
                }
                let pos = self.c.pos();
                let is_named = self.c.peek() == Some(b'%');
                if *named.get_or_insert(is_named) != is_named {
                    return self
                        .c
                        .err("expected all arguments to be named, or none of them");
                }
                let name = if is_named {
                    self.c.expect("%")?;
                    let Some(n) = self.c.suffix_id() else {
                        return self.c.err("expected argument name");
                    };
                    let n = n.to_string();
                    self.c.expect(":")?;
                    Some(n)
                } else {
                    None
                };
                let ty = self.parse_type()?;
                let attrs = if self.c.peek() == Some(b'{') {
                    self.parse_dict()?
                } else {
                    Default::default()
                };
                self.parse_arg_loc(pos)?;
                if let Some(n) = name {
                    args.push((n, ty.clone(), pos));
                }
                inputs.push(ty);
                arg_attrs.push(Attribute::Dict(attrs));
                if self.c.eat(")") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        let mut results = Vec::new();
        let mut res_attrs = Vec::new();
        if self.c.eat("->") {
            if self.c.eat("(") {
                if !self.c.eat(")") {
                    loop {
                        results.push(self.parse_type()?);
                        let attrs = if self.c.peek() == Some(b'{') {
                            self.parse_dict()?
                        } else {
                            Default::default()
                        };
                        res_attrs.push(Attribute::Dict(attrs));
                        if self.c.eat(")") {
                            break;
                        }
                        self.c.expect(",")?;
                    }
                }
            } else {
                results.push(self.parse_type()?);
                res_attrs.push(Attribute::Dict(Default::default()));
            }
        }
        if self.c.eat_keyword("attributes") {
            if self.c.peek() != Some(b'{') {
                return self
                    .c
                    .err("expected attribute dictionary after 'attributes'");
            }
            self.parse_opt_attr_dict(b)?;
        }
        let non_empty =
            |v: &[Attribute]| v.iter().any(|a| a.as_dict().is_some_and(|d| !d.is_empty()));
        if non_empty(&arg_attrs) {
            b.spec.attrs.set("arg_attrs", Attribute::Array(arg_attrs));
        }
        if non_empty(&res_attrs) {
            b.spec.attrs.set("res_attrs", Attribute::Array(res_attrs));
        }
        b.spec.attrs.set(
            "function_type",
            Attribute::Type(Type::Function(FunctionType { inputs, results })),
        );
        let r = self.m.new_detached_region();
        if self.c.peek() == Some(b'{') {
            if named == Some(false) {
                return self
                    .c
                    .err("expected named arguments for a function with a body");
            }
            if let Some(d) = body_dialect {
                self.default_dialect.push(d);
            }
            // A function is isolated from above: a name it uses must be
            // defined inside it, and names around it are not visible.
            let body_pos = self.c.pos();
            let res = self.parse_isolated_region(r, &args);
            if body_dialect.is_some() {
                self.default_dialect.pop();
            }
            res?;
            self.check_function_body(r, body_pos)?;
        }
        // Without a body the argument names, if any, are dropped: MLIR's
        // function parser accepts named arguments on declarations.
        b.regions.push(r);
        Ok(is_variadic)
    }
}

/// The terminators a function body's block may end with (MLIR's
/// `IsTerminator` ops of the dialects read here that can stand in one;
/// `transform.yield` ends a `transform.named_sequence`, read as a function).
pub(crate) const FUNCTION_TERMINATORS: &[&str] = &[
    "cf.br",
    "cf.cond_br",
    "cf.switch",
    "func.return",
    "llvm.br",
    "llvm.cond_br",
    "llvm.return",
    "llvm.switch",
    "llvm.unreachable",
    "transform.yield",
];

impl Parser<'_> {
    /// A function body has at least one block, none of them empty: `{}`
    /// without arguments is no body at all (MLIR's "expected non-empty
    /// function body"), and an empty block is pointed at here, where its
    /// position is known. That each block ends with a terminator is the
    /// general rule every op with regions is checked by once read
    /// (`parse::terminators`).
    fn check_function_body(&mut self, r: crate::ir::RegionId, body_pos: usize) -> PResult<()> {
        let blocks = self.m.region_blocks(r);
        if blocks.is_empty() {
            return self.c.err_at(body_pos, "expected non-empty function body");
        }
        if blocks.iter().any(|&b| self.m.last_op(b).is_none()) {
            return self
                .c
                .err_at(body_pos, "empty block: expect at least a terminator");
        }
        Ok(())
    }
}

impl OpPrinter<'_> {
    fn print_func(&mut self, op: OpId) -> bool {
        let m = self.m;
        let d = m.op(op);
        let (Some(sym), Some(fty)) = (m.func_name(op), m.func_type(op)) else {
            return false;
        };
        let body = m.func_body(op);
        let args: Vec<ValueId> = body.map(|b| m.block_args(b).to_vec()).unwrap_or_default();
        if body.is_some() && args.len() != fty.inputs.len() {
            return false;
        }
        self.out.push_str(d.name());
        self.out.push(' ');
        if let Some(v) = d.attr("sym_visibility").and_then(Attribute::as_str) {
            let _ = write!(self.out, "{v} ");
        }
        let elided = [
            "sym_name",
            "function_type",
            "sym_visibility",
            "arg_attrs",
            "res_attrs",
        ];
        self.print_func_after_keywords(op, sym, fty, false, &elided, Some("func"));
        true
    }

    /// Prints a function's `@name(args) -> results attributes {..} {body}`
    /// (see `parse_func_after_keywords`); `elided` are the attributes the
    /// syntax writes elsewhere. The body, if any, has one entry argument
    /// per input.
    pub(crate) fn print_func_after_keywords(
        &mut self,
        op: OpId,
        sym: &str,
        fty: &FunctionType,
        variadic: bool,
        elided: &[&str],
        body_dialect: Option<&'static str>,
    ) {
        let m = self.m;
        let d = m.op(op);
        let body = m.func_body(op);
        let args: Vec<ValueId> = body.map(|b| m.block_args(b).to_vec()).unwrap_or_default();
        write_symbol(&mut self.out, sym);
        self.out.push('(');
        let dict_at = |name: &str, i: usize| {
            d.attr(name)
                .and_then(Attribute::as_array)
                .and_then(|a| a.get(i))
                .and_then(Attribute::as_dict)
                .filter(|d| !d.is_empty())
        };
        for (i, t) in fty.inputs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            if body.is_some() {
                self.value(args[i]);
                self.out.push_str(": ");
            }
            self.ty_with_attrs(t, dict_at("arg_attrs", i));
            if body.is_some() {
                self.arg_loc(args[i]);
            }
        }
        if variadic {
            if !fty.inputs.is_empty() {
                self.out.push_str(", ");
            }
            self.out.push_str("...");
        }
        self.out.push(')');
        if !fty.results.is_empty() {
            self.out.push_str(" -> ");
            let any_attrs = (0..fty.results.len()).any(|i| dict_at("res_attrs", i).is_some());
            if any_attrs {
                self.out.push('(');
                for (i, t) in fty.results.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.ty_with_attrs(t, dict_at("res_attrs", i));
                }
                self.out.push(')');
            } else {
                write_result_types(&mut self.out, &fty.results);
            }
        }
        if d.attrs.iter().any(|(n, _)| !elided.contains(&n)) {
            self.out.push_str(" attributes");
            self.attr_dict(op, elided);
        }
        if let Some(&r) = d.regions().first() {
            if !m.region_blocks(r).is_empty() {
                self.out.push(' ');
                if let Some(dialect) = body_dialect {
                    self.default_dialect.push(dialect);
                }
                self.region(r, false, true);
                if body_dialect.is_some() {
                    self.default_dialect.pop();
                }
            }
        }
    }
}

// `func.call @f(%a) {attrs} : (T) -> R`.

impl Parser<'_> {
    fn parse_call(&mut self, b: &mut Built) -> PResult<()> {
        let sym = self.parse_symbol_name()?;
        b.spec.attrs.set(
            "callee",
            Attribute::SymbolRef {
                root: sym,
                nested: vec![],
            },
        );
        self.c.expect("(")?;
        let ops = self.parse_operand_list()?;
        self.c.expect(")")?;
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let fty = self.parse_function_type()?;
        self.check_types(&ops, &fty.inputs)?;
        b.operands(&ops);
        b.spec.result_types = fty.results;
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_call(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        let Some(callee) = d.attr("callee").and_then(Attribute::as_symbol) else {
            return false;
        };
        let _ = write!(self.out, "{name} ");
        write_symbol(&mut self.out, callee);
        self.out.push('(');
        self.values(&operands);
        self.out.push(')');
        self.attr_dict(op, &["callee"]);
        self.out.push_str(" : ");
        self.sig(op);
        true
    }
}
