//! The `memref` ops in custom form. Storage, as MLIR keeps them:
//! `alloc`/`alloca` operands as [dynamic sizes], [symbols];
//! `subview`/`reinterpret_cast` as [source], [offsets], [sizes], [strides]
//! (dynamic ones) with `static_offsets`/`static_sizes`/`static_strides`;
//! `collapse_shape`/`expand_shape` with `reassociation` (and
//! `static_output_shape`); `view` as [source], [byte shift], [sizes];
//! `load`/`store` as [value,] memref, indices; `transpose` keeps its
//! `permutation` map. `cast`/`memory_space_cast` are casts and `dealloc`
//! an operand list ([`super::shapes`]).

use std::fmt::Write;

use crate::ir::{Attribute, OpId, Type, DYNAMIC};
use crate::parse::cursor::PResult;
use crate::parse::ops::{Built, Mixed};
use crate::parse::Parser;
use crate::print::ops::{mixed_of, OpPrinter};
use crate::print::types::{write_attr, write_string, write_symbol};

use super::affine::{collapse, map_parts};

/// The custom forms of the dialect's ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `memref.alloc/alloca(%d)[%s] : T`.
    Alloc,
    /// `memref.subview %src[o] [s] [st] : T to U`.
    Subview,
    /// `memref.reinterpret_cast %src to offset: [..], sizes: [..], strides: [..] : T to U`.
    ReinterpretCast,
    /// `memref.collapse_shape` / `expand_shape`: `%a [[0, 1]] : T into U`.
    Reassociate,
    /// `memref.reshape %a(%shape) : (T, S) -> U`.
    Reshape,
    /// `memref.view %a[%shift][%sizes] : T to U`.
    View,
    /// `memref.copy %a, %b : T to U`.
    Copy,
    /// `memref.load %m[%i] : T`.
    Load,
    /// `memref.store %v, %m[%i] : T`.
    Store,
    /// `memref.get_global @x : T`.
    GetGlobal,
    /// `memref.global`.
    Global,
    /// `memref.dim %m, %i : T`.
    Dim,
    /// `memref.transpose %v (d0, d1) -> (d1, d0) : T to U`.
    Transpose,
}

/// The form of `memref.<op>` (`op` without the dialect prefix).
pub(super) fn form(op: &str) -> Option<super::Form> {
    Some(match op {
        "alloc" | "alloca" => super::Form::Memref(Form::Alloc),
        "subview" => super::Form::Memref(Form::Subview),
        "reinterpret_cast" => super::Form::Memref(Form::ReinterpretCast),
        "collapse_shape" | "expand_shape" => super::Form::Memref(Form::Reassociate),
        "reshape" => super::Form::Memref(Form::Reshape),
        "view" => super::Form::Memref(Form::View),
        "copy" => super::Form::Memref(Form::Copy),
        "load" => super::Form::Memref(Form::Load),
        "store" => super::Form::Memref(Form::Store),
        "get_global" => super::Form::Memref(Form::GetGlobal),
        "global" => super::Form::Memref(Form::Global),
        "dim" => super::Form::Memref(Form::Dim),
        "transpose" => super::Form::Memref(Form::Transpose),
        "dealloc" => super::Form::Shape(super::shapes::Form::OperandList),
        "cast" | "memory_space_cast" => super::Form::Shape(super::shapes::Form::Cast),
        _ => return None,
    })
}

impl Parser<'_> {
    /// Reads the rest of a `memref` op in custom form (after its name).
    pub(crate) fn parse_memref_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::Alloc => self.parse_alloc(b),
            Form::Subview => self.parse_slice(b, true),
            Form::ReinterpretCast => self.parse_slice(b, false),
            Form::Reassociate => self.parse_reassociate(b),
            Form::Reshape => self.parse_reshape(b),
            Form::View => self.parse_view(b),
            Form::Copy => self.parse_copy(b),
            Form::Load => self.parse_load_store(b, false),
            Form::Store => self.parse_load_store(b, true),
            Form::GetGlobal => self.parse_get_global(b),
            Form::Global => self.parse_global(b),
            Form::Dim => self.parse_dim(b),
            Form::Transpose => self.parse_memref_transpose(b),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints a `memref` op in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_memref_op(&mut self, op: OpId, form: Form, name: &str) -> bool {
        match form {
            Form::Alloc => self.print_alloc(op, name),
            Form::Subview => self.print_slice(op, name, true),
            Form::ReinterpretCast => self.print_slice(op, name, false),
            Form::Reassociate => self.print_reassociate(op, name),
            Form::Reshape => self.print_reshape(op, name),
            Form::View => self.print_view(op, name),
            Form::Copy => self.print_copy(op, name),
            Form::Load => self.print_load_store(op, name, false),
            Form::Store => self.print_load_store(op, name, true),
            Form::GetGlobal => self.print_get_global(op, name),
            Form::Global => self.print_global(op, name),
            Form::Dim => self.print_dim(op, name),
            Form::Transpose => self.print_memref_transpose(op, name),
        }
    }
}

// `memref.alloc/alloca(%d)[%s] {attrs} : T`.

impl Parser<'_> {
    pub(crate) fn parse_alloc(&mut self, b: &mut Built) -> PResult<()> {
        self.c.expect("(")?;
        let dyns = self.parse_operand_list()?;
        self.c.expect(")")?;
        let syms = self.parse_opt_bracket_operands()?;
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        self.c.skip_ws();
        let tp = self.c.pos();
        let ty = self.parse_type()?;
        let Some(m) = ty.as_memref() else {
            return self.c.err_at(tp, "expected a memref type");
        };
        let ndyn = m.shape.iter().filter(|&&d| d == DYNAMIC).count();
        if ndyn != dyns.len() {
            return self.c.err_at(
                tp,
                "dimension operand count does not equal memref dynamic dimension count",
            );
        }
        self.check_all(&dyns, &Type::Index)?;
        self.check_all(&syms, &Type::Index)?;
        b.spec.segments = vec![dyns.len() as u32, syms.len() as u32];
        b.operands(&dyns);
        b.operands(&syms);
        b.spec.result_types = vec![ty];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_alloc(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let result_ty = |i: usize| d.result(i).map(|v| m.value_type(v));
        let Some(t) = result_ty(0) else { return false };
        self.out.push_str(name);
        self.out.push('(');
        self.values(d.segment(0));
        self.out.push(')');
        let syms = d.segment(1).to_vec();
        if !syms.is_empty() {
            self.out.push('[');
            self.values(&syms);
            self.out.push(']');
        }
        self.attr_dict(op, &[]);
        self.out.push_str(" : ");
        self.ty(t);
        true
    }
}

// `memref.subview %src[o] [s] [st]` and `memref.reinterpret_cast %src to offset: [..], sizes: [..], strides: [..]`, then `{attrs} : T to U`.

impl Parser<'_> {
    pub(crate) fn parse_slice(&mut self, b: &mut Built, subview: bool) -> PResult<()> {
        let src = self.parse_operand()?;
        let lists = if subview {
            // `%src[offsets] [sizes] [strides]`
            [
                self.parse_mixed_list()?,
                self.parse_mixed_list()?,
                self.parse_mixed_list()?,
            ]
        } else {
            // `%src to offset: [..], sizes: [..], strides: [..]`
            self.c.expect("to")?;
            self.c.expect("offset")?;
            self.c.expect(":")?;
            let offsets = self.parse_mixed_list()?;
            self.c.expect(",")?;
            self.c.expect("sizes")?;
            self.c.expect(":")?;
            let sizes = self.parse_mixed_list()?;
            self.c.expect(",")?;
            self.c.expect("strides")?;
            self.c.expect(":")?;
            [offsets, sizes, self.parse_mixed_list()?]
        };
        self.parse_opt_attr_dict(b)?;
        let rty = self.parse_view_types(&src, "to")?;
        self.set_slice(b, src, lists)?;
        b.spec.result_types = vec![rty];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_slice(&mut self, op: OpId, name: &str, subview: bool) -> bool {
        let m = self.m;
        let d = m.op(op);
        let result_ty = |i: usize| d.result(i).map(|v| m.value_type(v));
        let Some(parts) = m.slice_parts(op) else {
            return false;
        };
        let Some(t) = result_ty(0) else { return false };
        let _ = write!(self.out, "{name} ");
        self.value(parts.source);
        if subview {
            self.mixed(&parts.offsets);
            self.out.push(' ');
            self.mixed(&parts.sizes);
            self.out.push(' ');
            self.mixed(&parts.strides);
        } else {
            self.out.push_str(" to offset: ");
            self.mixed(&parts.offsets);
            self.out.push_str(", sizes: ");
            self.mixed(&parts.sizes);
            self.out.push_str(", strides: ");
            self.mixed(&parts.strides);
        }
        self.attr_dict(op, &["static_offsets", "static_sizes", "static_strides"]);
        self.view_types(m.value_type(parts.source), "to", t);
        true
    }
}

// `memref.collapse_shape`/`expand_shape`: `%a [[0, 1]] [output_shape [..]] {attrs} : T into U`.

impl Parser<'_> {
    pub(crate) fn parse_reassociate(&mut self, b: &mut Built) -> PResult<()> {
        let src = self.parse_operand()?;
        self.c.skip_ws();
        let rp = self.c.pos();
        let re = self.parse_attribute()?;
        let ok = re
            .as_array()
            .is_some_and(|a| a.iter().all(|g| g.as_int_array().is_some()));
        if !ok {
            return self
                .c
                .err_at(rp, "expected reassociation indices like [[0, 1], [2]]");
        }
        b.spec.attrs.set("reassociation", re);
        let mut dyns = Vec::new();
        if b.spec.name == "memref.expand_shape" && self.c.eat_keyword("output_shape") {
            let list = self.parse_mixed_list()?;
            let mut statics = Vec::new();
            for m in list {
                match m {
                    Mixed::Static(v) => statics.push(v),
                    Mixed::Dynamic(o) => {
                        statics.push(DYNAMIC);
                        dyns.push(o);
                    }
                }
            }
            b.spec
                .attrs
                .set("static_output_shape", Attribute::dense_i64(statics));
        }
        self.parse_opt_attr_dict(b)?;
        let rty = self.parse_view_types(&src, "into")?;
        self.check_all(&dyns, &Type::Index)?;
        b.operands(std::slice::from_ref(&src));
        b.operands(&dyns);
        if b.spec.name == "memref.expand_shape" {
            b.spec.segments = vec![1, dyns.len() as u32];
        }
        b.spec.result_types = vec![rty];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_reassociate(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        let result_ty = |i: usize| d.result(i).map(|v| m.value_type(v));
        let Some(re) = d.attr("reassociation") else {
            return false;
        };
        let Some(t) = result_ty(0) else { return false };
        let Some(&src) = operands.first() else {
            return false;
        };
        let _ = write!(self.out, "{name} ");
        self.value(src);
        self.out.push(' ');
        write_attr(&mut self.out, re, true);
        if let Some(shape) = d
            .attr("static_output_shape")
            .and_then(Attribute::as_int_array)
        {
            self.out.push_str(" output_shape ");
            let dyns = d.segment(1).to_vec();
            let mixed = mixed_of(&shape, &dyns);
            self.mixed(&mixed);
        }
        self.attr_dict(op, &["reassociation", "static_output_shape"]);
        self.view_types(m.value_type(src), "into", t);
        true
    }
}

// `memref.reshape %a(%shape) {attrs} : (T, S) -> U`.

impl Parser<'_> {
    pub(crate) fn parse_reshape(&mut self, b: &mut Built) -> PResult<()> {
        let src = self.parse_operand()?;
        self.c.expect("(")?;
        let shape = self.parse_operand()?;
        self.c.expect(")")?;
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let fty = self.parse_function_type()?;
        if fty.results.len() != 1 {
            return self.c.err("expected one result type");
        }
        let ops = [src, shape];
        self.check_types(&ops, &fty.inputs)?;
        b.operands(&ops);
        b.spec.result_types = fty.results;
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_reshape(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        if operands.len() != 2 || d.results().len() != 1 {
            return false;
        }
        let _ = write!(self.out, "{name} ");
        self.value(operands[0]);
        self.out.push('(');
        self.value(operands[1]);
        self.out.push(')');
        self.attr_dict(op, &[]);
        self.out.push_str(" : ");
        self.sig(op);
        true
    }
}

// `memref.view %a[%shift][%sizes] {attrs} : T to U`.

impl Parser<'_> {
    pub(crate) fn parse_view(&mut self, b: &mut Built) -> PResult<()> {
        let src = self.parse_operand()?;
        self.c.expect("[")?;
        let shift = self.parse_operand()?;
        self.c.expect("]")?;
        let sizes = self.parse_bracket_operands()?;
        self.parse_opt_attr_dict(b)?;
        let rty = self.parse_view_types(&src, "to")?;
        self.check_all(std::slice::from_ref(&shift), &Type::Index)?;
        self.check_all(&sizes, &Type::Index)?;
        b.spec.segments = vec![1, 1, sizes.len() as u32];
        b.operands(&[src, shift]);
        b.operands(&sizes);
        b.spec.result_types = vec![rty];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_view(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        let result_ty = |i: usize| d.result(i).map(|v| m.value_type(v));
        if d.segments.len() != 3 || d.segment(0).len() != 1 || d.segment(1).len() != 1 {
            return false;
        }
        let Some(t) = result_ty(0) else { return false };
        let _ = write!(self.out, "{name} ");
        self.value(operands[0]);
        self.out.push('[');
        self.value(operands[1]);
        self.out.push_str("][");
        self.values(d.segment(2));
        self.out.push(']');
        self.attr_dict(op, &[]);
        self.view_types(m.value_type(operands[0]), "to", t);
        true
    }
}

// `memref.copy %a, %b {attrs} : T to U`.

impl Parser<'_> {
    pub(crate) fn parse_copy(&mut self, b: &mut Built) -> PResult<()> {
        let ops = self.parse_operand_list()?;
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let t1 = self.parse_type()?;
        self.c.expect("to")?;
        let t2 = self.parse_type()?;
        self.check_types(&ops, &[t1, t2])?;
        b.operands(&ops);
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_copy(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        if operands.len() != 2 {
            return false;
        }
        let _ = write!(self.out, "{name} ");
        self.values(&operands);
        self.attr_dict(op, &[]);
        self.view_types(m.value_type(operands[0]), "to", m.value_type(operands[1]));
        true
    }
}

// `memref.load %m[%i] {attrs} : T` and `memref.store %v, %m[%i] {attrs} : T`.

impl Parser<'_> {
    pub(crate) fn parse_load_store(&mut self, b: &mut Built, store: bool) -> PResult<()> {
        let mut lead = Vec::new();
        if store {
            lead.push(self.parse_operand()?);
            self.c.expect(",")?;
        }
        let mem = self.parse_operand()?;
        let idx = self.parse_bracket_operands()?;
        self.check_all(&idx, &Type::Index)?;
        self.finish_memory_access(b, lead, mem, idx)?;
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_load_store(&mut self, op: OpId, name: &str, store: bool) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        let base = if store { 1 } else { 0 };
        let (Some(&mem), true) = (d.segment(base).first(), d.segments.len() == base + 2) else {
            return false;
        };
        let _ = write!(self.out, "{name} ");
        if store {
            self.value(operands[0]);
            self.out.push_str(", ");
        }
        self.value(mem);
        self.out.push('[');
        self.values(d.segment(base + 1));
        self.out.push(']');
        // `nontemporal` is `DefaultValuedOptionalAttr<BoolAttr, "false">`:
        // the generated printer elides its default.
        let elided: &[&str] = if self.m.op(op).attr("nontemporal") == Some(&Attribute::Bool(false))
        {
            &["nontemporal"]
        } else {
            &[]
        };
        self.attr_dict(op, elided);
        self.out.push_str(" : ");
        let t = m.value_type(mem);
        self.ty(t);
        true
    }
}

// `memref.get_global @x {attrs} : T`.

impl Parser<'_> {
    pub(crate) fn parse_get_global(&mut self, b: &mut Built) -> PResult<()> {
        self.c.skip_ws();
        let sym = self.parse_symbol_name()?;
        b.spec.attrs.set(
            "name",
            Attribute::SymbolRef {
                root: sym,
                nested: vec![],
            },
        );
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        b.spec.result_types = vec![self.parse_type()?];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_get_global(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let result_ty = |i: usize| d.result(i).map(|v| m.value_type(v));
        let Some(sym) = d.attr("name").and_then(Attribute::as_symbol) else {
            return false;
        };
        let Some(t) = result_ty(0) else { return false };
        let _ = write!(self.out, "{name} ");
        write_symbol(&mut self.out, sym);
        self.attr_dict(op, &["name"]);
        self.out.push_str(" : ");
        self.ty(t);
        true
    }
}

// `memref.global "vis" constant @x : T = init {attrs}`.

impl Parser<'_> {
    pub(crate) fn parse_global(&mut self, b: &mut Built) -> PResult<()> {
        if self.c.peek() == Some(b'"') {
            let vis = self.c.string()?;
            b.spec.attrs.set("sym_visibility", Attribute::String(vis));
        }
        if self.c.eat_keyword("constant") {
            b.spec.attrs.set("constant", Attribute::Unit);
        }
        let sym = self.parse_symbol_name()?;
        b.spec.attrs.set("sym_name", Attribute::String(sym));
        self.c.expect(":")?;
        let ty = self.parse_type()?;
        b.spec.attrs.set("type", Attribute::Type(ty.clone()));
        if self.c.eat("=") {
            if self.c.eat_keyword("uninitialized") {
                b.spec.attrs.set("initial_value", Attribute::Unit);
            } else {
                let mut init = self.parse_attribute()?;
                // The initial value's elements have the memref's
                // element type: print them as MLIR does.
                if let (Attribute::Opaque(t), Some(elem)) = (&init, ty.element_type()) {
                    if let Some(inner) = t.strip_prefix("dense<").and_then(|r| r.strip_suffix('>'))
                    {
                        if let Some(c) = crate::parse::dense::canonical_dense(inner, elem) {
                            init = Attribute::Opaque(format!("dense<{c}>"));
                        }
                    }
                }
                b.spec.attrs.set("initial_value", init);
            }
        }
        self.parse_opt_attr_dict(b)?;
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_global(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let (Some(sym), Some(t)) = (
            d.attr("sym_name").and_then(Attribute::as_str),
            d.attr("type").and_then(Attribute::as_type),
        ) else {
            return false;
        };
        self.out.push_str(name);
        if let Some(v) = d.attr("sym_visibility").and_then(Attribute::as_str) {
            self.out.push(' ');
            write_string(&mut self.out, v);
        }
        if d.has_attr("constant") {
            self.out.push_str(" constant");
        }
        self.out.push(' ');
        write_symbol(&mut self.out, sym);
        self.out.push_str(" : ");
        self.ty(t);
        match d.attr("initial_value") {
            Some(Attribute::Unit) => self.out.push_str(" = uninitialized"),
            Some(a) => {
                self.out.push_str(" = ");
                write_attr(&mut self.out, a, false);
            }
            None => {}
        }
        self.attr_dict(
            op,
            &[
                "sym_visibility",
                "constant",
                "sym_name",
                "type",
                "initial_value",
            ],
        );
        true
    }
}

// `memref.dim %m, %i {attrs} : T`.

impl Parser<'_> {
    pub(crate) fn parse_dim(&mut self, b: &mut Built) -> PResult<()> {
        let ops = self.parse_operand_list()?;
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let ty = self.parse_type()?;
        self.check_types(&ops, &[ty, Type::Index])?;
        b.operands(&ops);
        b.spec.result_types = vec![Type::Index];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_dim(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        if operands.len() != 2 {
            return false;
        }
        let _ = write!(self.out, "{name} ");
        self.values(&operands);
        self.attr_dict(op, &[]);
        self.out.push_str(" : ");
        let t = m.value_type(operands[0]);
        self.ty(t);
        true
    }
}

// `memref.transpose %v (d0, d1) -> (d1, d0) {attrs} : T to U`.

impl Parser<'_> {
    /// `memref.transpose %v (d0, d1) -> (d1, d0) {attrs} : T to U`.
    pub(crate) fn parse_memref_transpose(&mut self, b: &mut Built) -> PResult<()> {
        let src = self.parse_operand()?;
        self.c.skip_ws();
        let ins = self.c.balanced()?.to_string();
        self.c.expect("->")?;
        self.c.skip_ws();
        let outs = self.c.balanced()?.to_string();
        let map = format!("affine_map<{} -> {}>", collapse(&ins), collapse(&outs));
        b.spec.attrs.set("permutation", Attribute::Opaque(map));
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let sty = self.parse_type()?;
        self.check_types(std::slice::from_ref(&src), &[sty])?;
        self.c.expect("to")?;
        let rty = self.parse_type()?;
        b.operands(&[src]);
        b.spec.result_types = vec![rty];
        Ok(())
    }
}

impl OpPrinter<'_> {
    /// `memref.transpose %v (d0, d1) -> (d1, d0) : T to U`.
    pub(crate) fn print_memref_transpose(&mut self, op: OpId, name: &str) -> bool {
        let m = self.module();
        let d = m.op(op);
        let (Some(Attribute::Opaque(map)), Some(src), Some(res)) =
            (d.attr("permutation"), d.operand(0), d.result(0))
        else {
            return false;
        };
        let Some((ins, outs)) = map_parts(map) else {
            return false;
        };
        self.push(&format!("{name} "));
        self.print_values(&[src]);
        self.push(&format!(" {ins} -> {outs}"));
        self.print_attr_dict(op, &["permutation"]);
        self.push(" : ");
        self.print_type(m.value_type(src));
        self.push(" to ");
        self.print_type(m.value_type(res));
        true
    }
}
