//! Printing types and attributes (also their `Display`).

use std::fmt::{self, Write};

use crate::ir::{
    is_dynamic, Attribute, FloatKind, FunctionType, Layout, NamedAttrs, Signedness, Type,
};

/// Appends the text of `ty`.
pub fn write_type(out: &mut String, ty: &Type) {
    match ty {
        Type::Index => out.push_str("index"),
        Type::Integer { width, signedness } => {
            let p = match signedness {
                Signedness::Signless => "i",
                Signedness::Signed => "si",
                Signedness::Unsigned => "ui",
            };
            let _ = write!(out, "{p}{width}");
        }
        Type::Float(k) => out.push_str(k.keyword()),
        Type::None => out.push_str("none"),
        Type::MemRef(m) => {
            out.push_str("memref<");
            write_dims(out, &m.shape);
            write_type(out, &m.elem);
            match &m.layout {
                Layout::Identity => {}
                Layout::Strided { strides, offset } => {
                    out.push_str(", ");
                    write_strided(out, strides, *offset);
                }
                Layout::Map(a) => {
                    out.push_str(", ");
                    write_attr(out, a, false);
                }
            }
            if let Some(s) = &m.memory_space {
                out.push_str(", ");
                write_memory_space(out, s);
            }
            out.push('>');
        }
        Type::UnrankedMemRef { elem, memory_space } => {
            out.push_str("memref<*x");
            write_type(out, elem);
            if let Some(s) = memory_space {
                out.push_str(", ");
                write_memory_space(out, s);
            }
            out.push('>');
        }
        Type::Vector(v) => {
            out.push_str("vector<");
            for (i, &d) in v.shape.iter().enumerate() {
                if v.scalable.get(i).copied().unwrap_or(false) {
                    let _ = write!(out, "[{d}]x");
                } else {
                    let _ = write!(out, "{d}x");
                }
            }
            write_type(out, &v.elem);
            out.push('>');
        }
        Type::Tensor {
            shape,
            elem,
            encoding,
        } => {
            out.push_str("tensor<");
            write_dims(out, shape);
            write_type(out, elem);
            if let Some(e) = encoding {
                out.push_str(", ");
                write_attr(out, e, false);
            }
            out.push('>');
        }
        Type::UnrankedTensor(elem) => {
            out.push_str("tensor<*x");
            write_type(out, elem);
            out.push('>');
        }
        Type::Function(f) => write_function_type(out, f),
        Type::Tuple(items) => {
            out.push_str("tuple<");
            write_type_list(out, items);
            out.push('>');
        }
        Type::Opaque(text) => out.push_str(text),
    }
}

fn write_memory_space(out: &mut String, s: &Attribute) {
    // Integer memory spaces print without their type (`memref<4xf32, 1>`).
    match s {
        Attribute::Integer { value, .. } => {
            let _ = write!(out, "{value}");
        }
        other => write_attr(out, other, false),
    }
}

fn write_dims(out: &mut String, shape: &[i64]) {
    for &d in shape {
        if is_dynamic(d) {
            out.push_str("?x");
        } else {
            let _ = write!(out, "{d}x");
        }
    }
}

/// Appends `strided<[..], offset: ..>` (offset omitted when 0).
pub fn write_strided(out: &mut String, strides: &[i64], offset: i64) {
    out.push_str("strided<[");
    for (i, &s) in strides.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_static_or_dynamic(out, s);
    }
    out.push(']');
    if offset != 0 {
        out.push_str(", offset: ");
        write_static_or_dynamic(out, offset);
    }
    out.push('>');
}

/// Appends `?` for [`crate::ir::DYNAMIC`], the number otherwise.
pub fn write_static_or_dynamic(out: &mut String, v: i64) {
    if is_dynamic(v) {
        out.push('?');
    } else {
        let _ = write!(out, "{v}");
    }
}

/// Appends `T, U, V`.
pub fn write_type_list(out: &mut String, types: &[Type]) {
    for (i, t) in types.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_type(out, t);
    }
}

/// Appends `(T, U) -> V` / `(T) -> (U, V)` / `() -> ()`.
pub fn write_function_type(out: &mut String, f: &FunctionType) {
    out.push('(');
    write_type_list(out, &f.inputs);
    out.push_str(") -> ");
    write_result_types(out, &f.results);
}

/// Appends result types the way function types show them: a single
/// non-function type bare, otherwise parenthesised.
pub fn write_result_types(out: &mut String, results: &[Type]) {
    if results.len() == 1 && !matches!(results[0], Type::Function(_)) {
        write_type(out, &results[0]);
    } else {
        out.push('(');
        write_type_list(out, results);
        out.push(')');
    }
}

/// Appends the text of an attribute. With `elide_default_type`, `i64`
/// integers and `f64` floats print without their type (MLIR does so inside
/// arrays and wherever the type is implied).
pub fn write_attr(out: &mut String, a: &Attribute, elide_default_type: bool) {
    match a {
        Attribute::Unit => out.push_str("unit"),
        Attribute::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Attribute::Integer { value, ty } => {
            if matches!(
                ty,
                Type::Integer {
                    width: 1,
                    signedness: Signedness::Signless
                }
            ) {
                out.push_str(if *value != 0 { "true" } else { "false" });
                return;
            }
            let _ = write!(out, "{value}");
            if !(elide_default_type && *ty == Type::i64()) {
                out.push_str(" : ");
                write_type(out, ty);
            }
        }
        Attribute::Float { bits, ty } => {
            let v = f64::from_bits(*bits);
            let kind = match ty {
                Type::Float(k) => *k,
                _ => FloatKind::F64,
            };
            out.push_str(&format_float(v, kind));
            if !(elide_default_type && *ty == Type::Float(FloatKind::F64)) {
                out.push_str(" : ");
                write_type(out, ty);
            }
        }
        Attribute::String(s) => write_string(out, s),
        Attribute::Type(t) => write_type(out, t),
        Attribute::Array(items) => {
            out.push('[');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_attr(out, it, true);
            }
            out.push(']');
        }
        Attribute::DenseArray { elem, values } => {
            out.push_str("array<");
            write_type(out, elem);
            let is_bool = *elem == Type::i1();
            for (i, v) in values.iter().enumerate() {
                out.push_str(if i == 0 { ": " } else { ", " });
                if is_bool {
                    out.push_str(if *v != 0 { "true" } else { "false" });
                } else {
                    let _ = write!(out, "{v}");
                }
            }
            out.push('>');
        }
        Attribute::Dict(d) => write_dict(out, d),
        Attribute::SymbolRef { root, nested } => {
            write_symbol(out, root);
            for n in nested {
                out.push_str("::");
                write_symbol(out, n);
            }
        }
        Attribute::Dialect {
            dialect,
            mnemonic,
            params,
        } => {
            let _ = write!(out, "#{dialect}.{mnemonic}");
            if let Some(p) = params {
                let _ = write!(out, "<{p}>");
            }
        }
        Attribute::Opaque(text) => out.push_str(text),
    }
}

/// Appends `{a = 1 : i64, b}` (nothing is omitted; empty prints `{}`).
pub fn write_dict(out: &mut String, d: &NamedAttrs) {
    out.push('{');
    for (i, (name, value)) in d.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_attr_name(out, name);
        if *value != Attribute::Unit {
            out.push_str(" = ");
            write_attr(out, value, false);
        }
    }
    out.push('}');
}

/// Appends an attribute name, quoted when it is not a bare identifier.
pub fn write_attr_name(out: &mut String, name: &str) {
    if is_bare_identifier(name) {
        out.push_str(name);
    } else {
        write_string(out, name);
    }
}

/// Appends `@name`, quoting names that are not bare identifiers.
pub fn write_symbol(out: &mut String, name: &str) {
    out.push('@');
    if is_bare_identifier(name) {
        out.push_str(name);
    } else {
        write_string(out, name);
    }
}

/// Whether `s` is a bare identifier: `[a-zA-Z_][a-zA-Z0-9_$.]*`.
pub fn is_bare_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
}

/// Appends a string literal with MLIR's escapes (`\"`, `\\`, `\n`, `\t`,
/// other non-printable bytes as `\XX`).
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:02X}");
            }
        }
    }
    out.push('"');
}

/// Rounds `v` to the precision of `kind`.
pub fn round_to(v: f64, kind: FloatKind) -> f64 {
    match kind {
        FloatKind::F16 => f64::from(half::f16::from_f64(v)),
        FloatKind::BF16 => f64::from(half::bf16::from_f64(v)),
        FloatKind::F32 | FloatKind::TF32 => f64::from(v as f32),
        _ => v,
    }
}

/// A float the way MLIR prints it (`printFloatValue`): `APFloat::toString`
/// with 6 significant digits in scientific notation when that reads back
/// to the same value, otherwise its natural precision (see
/// [`crate::print::apfloat`]), and infinities/NaNs as bit patterns in hex.
pub fn format_float(v: f64, kind: FloatKind) -> String {
    // The value as the type holds it (out-of-range values become infinite).
    let v = round_to(v, kind);
    if v.is_finite() {
        if let Some(text) = format_apfloat(v, kind) {
            return text;
        }
        let e = format!("{v:.6e}");
        let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        let text = format!("{mantissa}e{sign}{:02}", exp.abs());
        let back: f64 = text.parse().unwrap_or(f64::NAN);
        if round_to(back, kind).to_bits() == v.to_bits() {
            return text;
        }
        let shortest = format!("{v}");
        if shortest.contains('.') {
            return shortest;
        }
        return format!("{shortest}.0");
    }
    let bits: u64 = match kind {
        FloatKind::F16 => u64::from(half::f16::from_f64(v).to_bits()),
        FloatKind::BF16 => u64::from(half::bf16::from_f64(v).to_bits()),
        FloatKind::F32 | FloatKind::TF32 => u64::from((v as f32).to_bits()),
        _ => v.to_bits(),
    };
    let digits = (kind.bit_width() as usize).div_ceil(4);
    format!("0x{bits:0digits$X}")
}

/// [`format_float`] for the IEEE kinds `APFloat` formats here (f16, bf16,
/// f32, f64); `None` for the others.
fn format_apfloat(v: f64, kind: FloatKind) -> Option<String> {
    use crate::print::apfloat::{parts, to_string};
    let (bits, e, f) = match kind {
        FloatKind::F16 => (u64::from(half::f16::from_f64(v).to_bits()), 5, 10),
        FloatKind::BF16 => (u64::from(half::bf16::from_f64(v).to_bits()), 8, 7),
        FloatKind::F32 => (u64::from((v as f32).to_bits()), 8, 23),
        FloatKind::F64 => (v.to_bits(), 11, 52),
        _ => return None,
    };
    let back_bits = |text: &str| -> Option<u64> {
        Some(match kind {
            FloatKind::F16 => u64::from(half::f16::from_f64(text.parse().ok()?).to_bits()),
            FloatKind::BF16 => u64::from(half::bf16::from_f64(text.parse().ok()?).to_bits()),
            FloatKind::F32 => u64::from(text.parse::<f32>().ok()?.to_bits()),
            _ => text.parse::<f64>().ok()?.to_bits(),
        })
    };
    let Some(p) = parts(bits, e, f) else {
        // Zero: "0.000000e+00" (the sign kept).
        let sign = if (bits >> (e + f)) & 1 == 1 { "-" } else { "" };
        return Some(format!("{sign}0.000000e+00"));
    };
    let sci = to_string(p, 6, 0, false);
    if back_bits(&sci) == Some(bits) {
        return Some(sci);
    }
    let natural = to_string(p, 0, 3, true);
    natural.contains('.').then_some(natural)
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_type(&mut s, self);
        f.write_str(&s)
    }
}

impl fmt::Display for Attribute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_attr(&mut s, self, false);
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_mlir() {
        let cases = [
            (0.0, FloatKind::F16, "0.000000e+00"),
            (1.5, FloatKind::F16, "1.500000e+00"),
            (-2.0, FloatKind::BF16, "-2.000000e+00"),
            (0.1, FloatKind::F32, "1.000000e-01"),
            (0.1, FloatKind::F64, "1.000000e-01"),
            (1.2345678912, FloatKind::F64, "1.2345678912"),
            (f64::INFINITY, FloatKind::F32, "0x7F800000"),
            (f64::NEG_INFINITY, FloatKind::F16, "0xFC00"),
            (1e10, FloatKind::F16, "0x7C00"),
        ];
        for (v, k, want) in cases {
            assert_eq!(format_float(v, k), want, "{v} as {}", k.keyword());
        }
    }

    #[test]
    fn types_and_attributes_print_canonically() {
        let t = Type::MemRef(crate::ir::MemRefType {
            shape: vec![crate::ir::DYNAMIC, 4],
            elem: Box::new(Type::Float(FloatKind::F32)),
            layout: Layout::Strided {
                strides: vec![crate::ir::DYNAMIC, 1],
                offset: crate::ir::DYNAMIC,
            },
            memory_space: Some(std::sync::Arc::new(Attribute::hivm_address_space("ub"))),
        });
        assert_eq!(
            t.to_string(),
            "memref<?x4xf32, strided<[?, 1], offset: ?>, #hivm.address_space<ub>>"
        );
        let mut d = NamedAttrs::new();
        d.set("b", Attribute::Unit);
        d.set("a", Attribute::i64(64));
        d.set(
            "my key",
            Attribute::Array(vec![Attribute::i64(1), Attribute::i32(2)]),
        );
        d.set("c", Attribute::dense_i32([1, 2]));
        assert_eq!(
            Attribute::Dict(d).to_string(),
            "{a = 64 : i64, b, c = array<i32: 1, 2>, \"my key\" = [1, 2 : i32]}"
        );
    }
}
