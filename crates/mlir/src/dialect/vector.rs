//! The `vector` ops in custom form: transfers (operands as [vector,]
//! base, indices, [padding,] [mask]), masks, `transpose` and
//! `multi_reduction`; `vector.yield` is an operand list and
//! `shape_cast`/`broadcast`/`bitcast` are casts ([`super::shapes`]).

use std::fmt::Write;

use crate::ir::{Attribute, OpId, Type};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;
use crate::print::types::write_attr;

/// The custom forms of the dialect's ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `vector.transfer_read`.
    TransferRead,
    /// `vector.transfer_write`.
    TransferWrite,
    /// `vector.constant_mask [4] : vector<8xi1>`.
    ConstantMask,
    /// `vector.create_mask %a : vector<8xi1>`.
    CreateMask,
    /// `vector.transpose %v, [1, 0] : T to U`.
    Transpose,
    /// `vector.multi_reduction <add>, %v, %acc [1] : T to U`.
    MultiReduction,
}

/// The form of `vector.<op>` (`op` without the dialect prefix).
pub(super) fn form(op: &str) -> Option<super::Form> {
    Some(match op {
        "transfer_read" => super::Form::Vector(Form::TransferRead),
        "transfer_write" => super::Form::Vector(Form::TransferWrite),
        "constant_mask" => super::Form::Vector(Form::ConstantMask),
        "create_mask" => super::Form::Vector(Form::CreateMask),
        "transpose" => super::Form::Vector(Form::Transpose),
        "multi_reduction" => super::Form::Vector(Form::MultiReduction),
        "yield" => super::Form::Shape(super::shapes::Form::OperandList),
        "shape_cast" | "broadcast" | "bitcast" | "type_cast" => {
            super::Form::Shape(super::shapes::Form::Cast)
        }
        _ => return None,
    })
}

impl Parser<'_> {
    /// Reads the rest of a `vector` op in custom form (after its name).
    pub(crate) fn parse_vector_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::TransferRead => self.parse_transfer_read(b),
            Form::TransferWrite => self.parse_transfer_write(b),
            Form::ConstantMask => self.parse_constant_mask(b),
            Form::CreateMask => self.parse_create_mask(b),
            Form::Transpose => self.parse_transpose(b),
            Form::MultiReduction => self.parse_multi_reduction(b),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints a `vector` op in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_vector_op(&mut self, op: OpId, form: Form, name: &str) -> bool {
        match form {
            Form::TransferRead => self.print_transfer(op, name, true),
            Form::TransferWrite => self.print_transfer(op, name, false),
            Form::ConstantMask => self.print_constant_mask(op, name),
            Form::CreateMask => self.print_create_mask(op, name),
            Form::Transpose => self.print_transpose(op, name),
            Form::MultiReduction => self.print_multi_reduction(op, name),
        }
    }
}

// `vector.transfer_read %src[%i], %pad[, %mask] {attrs} : S, V` and `vector.transfer_write %v, %dst[%i][, %mask] {attrs} : V, D`.

impl Parser<'_> {
    pub(crate) fn parse_transfer_read(&mut self, b: &mut Built) -> PResult<()> {
        let src = self.parse_operand()?;
        let idx = self.parse_bracket_operands()?;
        self.c.expect(",")?;
        let pad = self.parse_operand()?;
        let mask = self.parse_opt_mask()?;
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let sty = self.parse_type()?;
        self.c.expect(",")?;
        let vty = self.parse_type()?;
        self.check_types(std::slice::from_ref(&src), &[sty])?;
        self.check_all(&idx, &Type::Index)?;
        b.spec.segments = vec![1, idx.len() as u32, 1, mask.len() as u32];
        b.operands(&[src]);
        b.operands(&idx);
        b.operands(&[pad]);
        b.operands(&mask);
        b.spec.result_types = vec![vty];
        Ok(())
    }

    pub(crate) fn parse_transfer_write(&mut self, b: &mut Built) -> PResult<()> {
        let vec = self.parse_operand()?;
        self.c.expect(",")?;
        let dst = self.parse_operand()?;
        let idx = self.parse_bracket_operands()?;
        let mask = self.parse_opt_mask()?;
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let vty = self.parse_type()?;
        self.c.expect(",")?;
        let dty = self.parse_type()?;
        self.check_types(&[vec.clone(), dst.clone()], &[vty, dty.clone()])?;
        self.check_all(&idx, &Type::Index)?;
        b.spec.segments = vec![1, 1, idx.len() as u32, mask.len() as u32];
        b.operands(&[vec, dst]);
        b.operands(&idx);
        b.operands(&mask);
        if matches!(dty, Type::Tensor { .. }) {
            b.spec.result_types = vec![dty];
        }
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_transfer(&mut self, op: OpId, name: &str, read: bool) -> bool {
        let m = self.m;
        let d = m.op(op);
        let result_ty = |i: usize| d.result(i).map(|v| m.value_type(v));
        if d.segments.len() != 4 {
            return false;
        }
        let _ = write!(self.out, "{name} ");
        let (vec, base, idx, extra, mask) = if read {
            (None, d.segment(0), d.segment(1), d.segment(2), d.segment(3))
        } else {
            (
                d.segment(0).first().copied(),
                d.segment(1),
                d.segment(2),
                &[][..],
                d.segment(3),
            )
        };
        let (Some(&base), idx, extra, mask) =
            (base.first(), idx.to_vec(), extra.to_vec(), mask.to_vec())
        else {
            return false;
        };
        if let Some(v) = vec {
            self.value(v);
            self.out.push_str(", ");
        }
        self.value(base);
        self.out.push('[');
        self.values(&idx);
        self.out.push(']');
        for v in extra.into_iter().chain(mask) {
            self.out.push_str(", ");
            self.value(v);
        }
        // `printTransferAttrs`: a minor identity permutation map and
        // `in_bounds` with no dim in bounds are not printed.
        let mut elided = Vec::new();
        let vec_ty = if read {
            result_ty(0)
        } else {
            vec.map(|v| m.value_type(v))
        };
        let vec_rank = vec_ty.and_then(Type::shape).map(<[_]>::len);
        let base_rank = m.value_type(base).shape().map(<[_]>::len);
        if let (Some(a), Some(vr), Some(br)) = (d.attr("permutation_map"), vec_rank, base_rank) {
            if is_minor_identity(a, br, vr) {
                elided.push("permutation_map");
            }
        }
        if let Some(Attribute::Array(b)) = d.attr("in_bounds") {
            if b.iter().all(|x| *x == Attribute::Bool(false)) {
                elided.push("in_bounds");
            }
        }
        self.attr_dict(op, &elided);
        self.out.push_str(" : ");
        let bt = m.value_type(base);
        if read {
            let Some(t) = result_ty(0) else { return false };
            self.ty(bt);
            self.out.push_str(", ");
            self.ty(t);
        } else {
            let Some(v) = vec else { return false };
            let vt = m.value_type(v);
            self.ty(vt);
            self.out.push_str(", ");
            self.ty(bt);
        }
        true
    }
}

// `vector.constant_mask [4] {attrs} : T`.

impl Parser<'_> {
    pub(crate) fn parse_constant_mask(&mut self, b: &mut Built) -> PResult<()> {
        let sizes = self.parse_int_array("expected mask sizes like [4]")?;
        b.spec
            .attrs
            .set("mask_dim_sizes", Attribute::dense_i64(sizes));
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        b.spec.result_types = vec![self.parse_type()?];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_constant_mask(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let result_ty = |i: usize| d.result(i).map(|v| m.value_type(v));
        let Some(sizes) = d.attr("mask_dim_sizes").and_then(Attribute::as_int_array) else {
            return false;
        };
        let Some(t) = result_ty(0) else { return false };
        let _ = write!(self.out, "{name} ");
        write_attr(
            &mut self.out,
            &Attribute::Array(sizes.into_iter().map(Attribute::i64).collect()),
            true,
        );
        self.attr_dict(op, &["mask_dim_sizes"]);
        self.out.push_str(" : ");
        self.ty(t);
        true
    }
}

// `vector.create_mask %a {attrs} : T`.

impl Parser<'_> {
    pub(crate) fn parse_create_mask(&mut self, b: &mut Built) -> PResult<()> {
        let ops = self.parse_operand_list()?;
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        self.check_all(&ops, &Type::Index)?;
        b.operands(&ops);
        b.spec.result_types = vec![self.parse_type()?];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_create_mask(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        let result_ty = |i: usize| d.result(i).map(|v| m.value_type(v));
        let Some(t) = result_ty(0) else { return false };
        let _ = write!(self.out, "{name} ");
        self.values(&operands);
        self.attr_dict(op, &[]);
        self.out.push_str(" : ");
        self.ty(t);
        true
    }
}

// `vector.transpose %v, [1, 0] {attrs} : T to U`.

impl Parser<'_> {
    pub(crate) fn parse_transpose(&mut self, b: &mut Built) -> PResult<()> {
        let v = self.parse_operand()?;
        self.c.expect(",")?;
        let perm = self.parse_int_array("expected a permutation like [1, 0]")?;
        b.spec.attrs.set("permutation", Attribute::dense_i64(perm));
        self.parse_opt_attr_dict(b)?;
        let rty = self.parse_view_types(&v, "to")?;
        b.operands(&[v]);
        b.spec.result_types = vec![rty];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_transpose(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        let result_ty = |i: usize| d.result(i).map(|v| m.value_type(v));
        let Some(perm) = d.attr("permutation").and_then(Attribute::as_int_array) else {
            return false;
        };
        let (Some(t), Some(&src)) = (result_ty(0), operands.first()) else {
            return false;
        };
        let _ = write!(self.out, "{name} ");
        self.value(src);
        self.out.push_str(", ");
        write_attr(
            &mut self.out,
            &Attribute::Array(perm.into_iter().map(Attribute::i64).collect()),
            true,
        );
        self.attr_dict(op, &["permutation"]);
        self.view_types(m.value_type(src), "to", t);
        true
    }
}

// `vector.multi_reduction <kind>, %v, %acc {attrs} [dims] : T to U`
// (`$kind , $source , $acc attr-dict $reduction_dims : type to type`).

impl Parser<'_> {
    pub(crate) fn parse_multi_reduction(&mut self, b: &mut Built) -> PResult<()> {
        self.c.skip_ws();
        if self.c.peek() != Some(b'<') {
            return self.c.err("expected combining kind like <add>");
        }
        let kind = self.c.balanced()?.to_string();
        b.spec.attrs.set("kind", Attribute::Opaque(kind));
        self.c.expect(",")?;
        let src = self.parse_operand()?;
        self.c.expect(",")?;
        let acc = self.parse_operand()?;
        // `attr-dict $reduction_dims`: the dictionary comes first.
        self.parse_opt_attr_dict(b)?;
        let dims = self.parse_int_array("expected reduction dims like [1]")?;
        b.spec
            .attrs
            .set("reduction_dims", Attribute::dense_i64(dims));
        self.c.expect(":")?;
        let t = self.parse_type()?;
        self.c.expect("to")?;
        let r = self.parse_type()?;
        self.check_types(&[src.clone(), acc.clone()], &[t, r.clone()])?;
        b.operands(&[src, acc]);
        b.spec.result_types = vec![r];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_multi_reduction(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let operands = d.operands().to_vec();
        let result_ty = |i: usize| d.result(i).map(|v| m.value_type(v));
        let (Some(Attribute::Opaque(kind)), Some(dims)) = (
            d.attr("kind"),
            d.attr("reduction_dims").and_then(Attribute::as_int_array),
        ) else {
            return false;
        };
        let Some(t) = result_ty(0) else { return false };
        if operands.len() != 2 {
            return false;
        }
        let _ = write!(self.out, "{name} {kind}, ");
        self.values(&operands);
        self.attr_dict(op, &["kind", "reduction_dims"]);
        self.out.push(' ');
        write_attr(
            &mut self.out,
            &Attribute::Array(dims.into_iter().map(Attribute::i64).collect()),
            true,
        );
        self.view_types(m.value_type(operands[0]), "to", t);
        true
    }
}

/// Whether `a` is `affine_map<(d0, ..., d{n-1}) -> (d{n-k}, ..., d{n-1})>`
/// (`AffineMap::isMinorIdentity` for `n` dims and `k` results).
pub(crate) fn is_minor_identity(a: &Attribute, n: usize, k: usize) -> bool {
    let Attribute::Opaque(text) = a else {
        return false;
    };
    if k > n {
        return false;
    }
    let dims: Vec<String> = (0..n).map(|i| format!("d{i}")).collect();
    let expected = format!(
        "affine_map<({}) -> ({})>",
        dims.join(", "),
        dims[n - k..].join(", ")
    );
    let squash = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    squash(text) == squash(&expected)
}
