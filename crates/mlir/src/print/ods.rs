//! Printing an op by its declarative format ([`crate::ir::format`]), with
//! the spacing rules of MLIR's generated printers (`OpFormatGen.cpp`):
//! a literal gets a space before it unless it is one of `<>(){}[],`
//! (after punctuation: one of `>)}],`), nothing follows `(`, `[`, `<`, `{`
//! without a space, `` `` `` suppresses the next space; dialect
//! attributes print without their `#dialect.mnemonic` prefix, dense
//! arrays as `[1, 2]`, integers without their type. An optional group
//! prints when its anchor is present: an operand given, or an attribute
//! set, even to its default (the corpus's CHECK lines keep
//! `unsigned_src = false` when it was written); a default-valued
//! attribute outside any group prints its default when absent, as the
//! generated getter returns it.

use std::fmt::Write;

use crate::ir::format::{Elem, Var};
use crate::ir::ods::{OdsAttr, OdsOp, Presence};
use crate::ir::{Attribute, OpId, ValueId, DYNAMIC};
use crate::print::ops::OpPrinter;
use crate::print::segments::{operand_segment, result_segment};
use crate::print::types::{write_attr, write_type};

/// Spacing state between elements.
struct Space {
    emit: bool,
    last_punct: bool,
}

impl OpPrinter<'_> {
    /// Prints `op` (after its name) by its format; `false` when the op
    /// does not fit the format (the caller falls back to generic form).
    pub(crate) fn print_ods(
        &mut self,
        op: OpId,
        ods: &'static OdsOp,
        elems: &'static [Elem],
    ) -> bool {
        // Attributes the format prints itself are left out of attr-dict.
        let mut in_format: Vec<&str> = Vec::new();
        collect_attrs(elems, &mut in_format);
        let mut sp = Space {
            emit: true,
            last_punct: false,
        };
        self.ods_elems(op, ods, elems, &in_format, &mut sp)
    }

    fn ods_elems(
        &mut self,
        op: OpId,
        ods: &'static OdsOp,
        elems: &[Elem],
        in_format: &[&str],
        sp: &mut Space,
    ) -> bool {
        for e in elems {
            if !self.ods_elem(op, ods, e, in_format, sp) {
                return false;
            }
        }
        true
    }

    fn space(&mut self, sp: &mut Space) {
        if sp.emit {
            self.push(" ");
        }
        sp.emit = true;
        sp.last_punct = false;
    }

    fn ods_elem(
        &mut self,
        op: OpId,
        ods: &'static OdsOp,
        e: &Elem,
        in_format: &[&str],
        sp: &mut Space,
    ) -> bool {
        let m = self.module();
        let d = m.op(op);
        match e {
            Elem::Literal(l) => {
                if l.is_empty() {
                    sp.emit = false;
                    return true;
                }
                if *l == " " {
                    self.push(" ");
                    sp.emit = false;
                    return true;
                }
                let before = if l.len() != 1 && *l != "->" {
                    true
                } else if sp.last_punct {
                    !">)}],".contains(&l[..1])
                } else {
                    !"<>(){}[],".contains(&l[..1])
                };
                if sp.emit && before {
                    self.push(" ");
                }
                self.push(l);
                sp.emit = l.len() != 1 || !"<({[".contains(&l[..1]);
                sp.last_punct = !(l.as_bytes()[0] == b'_' || l.as_bytes()[0].is_ascii_alphabetic());
                true
            }
            Elem::Var(Var::Operand(i)) => {
                let vs = operand_segment(m, op, ods, *i);
                if vs.is_empty() {
                    return true;
                }
                self.space(sp);
                self.print_values(&vs);
                true
            }
            Elem::Var(Var::AllOperands) => {
                let vs = d.operands().to_vec();
                self.space(sp);
                self.print_values(&vs);
                true
            }
            Elem::Var(Var::Attr(a)) => {
                let Some(attr) = d.attr(a.name).cloned() else {
                    // An absent default-valued attribute prints its default,
                    // as the generated getter returns it.
                    if let (Presence::Default, Some(def)) = (a.presence, a.default) {
                        self.space(sp);
                        self.push(&default_text(a, def));
                        return true;
                    }
                    return a.presence != Presence::Required;
                };
                if a.kind == "unit" {
                    return true;
                }
                self.space(sp);
                let mut s = String::new();
                write_format_attr(&mut s, a, &attr);
                self.push(&s);
                true
            }
            Elem::Var(Var::Successor(i)) => {
                let Some(&b) = d.successors().get(*i) else {
                    return false;
                };
                self.space(sp);
                let name = self.block_name(b);
                self.push(&name);
                true
            }
            Elem::Var(_) => false,
            Elem::Type(v) => {
                let types: Vec<crate::ir::Type> = match v {
                    Var::Operand(i) => operand_segment(m, op, ods, *i)
                        .iter()
                        .map(|&v| m.value_type(v).clone())
                        .collect(),
                    Var::Result(i) => result_segment(m, op, ods, *i)
                        .iter()
                        .map(|&v| m.value_type(v).clone())
                        .collect(),
                    Var::AllOperands => d
                        .operands()
                        .iter()
                        .map(|&v| m.value_type(v).clone())
                        .collect(),
                    Var::AllResults => d
                        .results()
                        .iter()
                        .map(|&v| m.value_type(v).clone())
                        .collect(),
                    _ => return false,
                };
                if types.is_empty() {
                    return true;
                }
                self.space(sp);
                let mut s = String::new();
                for (k, t) in types.iter().enumerate() {
                    if k > 0 {
                        s.push_str(", ");
                    }
                    write_type(&mut s, t);
                }
                self.push(&s);
                true
            }
            Elem::FunctionalType(a, r) => {
                let ins: Vec<ValueId> = match a {
                    Var::Operand(i) => operand_segment(m, op, ods, *i),
                    _ => d.operands().to_vec(),
                };
                let outs: Vec<ValueId> = match r {
                    Var::Result(i) => result_segment(m, op, ods, *i),
                    _ => d.results().to_vec(),
                };
                self.space(sp);
                let f = crate::ir::FunctionType {
                    inputs: ins.iter().map(|&v| m.value_type(v).clone()).collect(),
                    results: outs.iter().map(|&v| m.value_type(v).clone()).collect(),
                };
                let mut s = String::new();
                crate::print::types::write_function_type(&mut s, &f);
                self.push(&s);
                true
            }
            Elem::AttrDict(keyword) => {
                let before = self.len();
                if *keyword {
                    let shown = d.attrs.iter().any(|(n, _)| !in_format.contains(&n));
                    if shown {
                        self.push(" attributes");
                    }
                }
                self.print_attr_dict(op, in_format);
                if self.len() > before {
                    sp.emit = true;
                    sp.last_punct = false;
                }
                true
            }
            Elem::Custom(name, vars) => self.ods_custom(op, ods, name, vars, sp),
            Elem::Optional { elems, anchor } => {
                if self.anchor_present(op, ods, *anchor) {
                    self.ods_elems(op, ods, elems, in_format, sp)
                } else {
                    true
                }
            }
        }
    }

    fn anchor_present(&self, op: OpId, ods: &'static OdsOp, anchor: Var) -> bool {
        let m = self.module();
        let d = m.op(op);
        match anchor {
            Var::Operand(i) => !operand_segment(m, op, ods, i).is_empty(),
            Var::Result(i) => !result_segment(m, op, ods, i).is_empty(),
            // Present when set, even to its default: the corpus's CHECK
            // lines keep `unsigned_src = false` when it was written.
            Var::Attr(a) => d.attr(a.name).is_some(),
            Var::AllOperands => !d.operands().is_empty(),
            Var::AllResults => !d.results().is_empty(),
            Var::Region(_) => false,
            Var::Successor(_) => true,
        }
    }

    fn ods_custom(
        &mut self,
        op: OpId,
        ods: &'static OdsOp,
        name: &str,
        vars: &[Var],
        sp: &mut Space,
    ) -> bool {
        let m = self.module();
        let d = m.op(op);
        match (name, vars) {
            ("DynamicIndexList", [Var::Operand(dy), Var::Attr(s)]) => {
                let statics = d
                    .attr(s.name)
                    .and_then(Attribute::as_int_array)
                    .unwrap_or_default();
                let dyns = operand_segment(m, op, ods, *dy);
                self.space(sp);
                self.push("[");
                let mut k = 0;
                for (i, &v) in statics.iter().enumerate() {
                    if i > 0 {
                        self.push(", ");
                    }
                    if v == DYNAMIC {
                        match dyns.get(k) {
                            Some(&dv) => self.print_values(&[dv]),
                            None => return false,
                        }
                        k += 1;
                    } else {
                        self.push(&v.to_string());
                    }
                }
                self.push("]");
                true
            }
            ("EventID" | "FlagID", [Var::Attr(s), Var::Operand(dy)]) => {
                self.space(sp);
                if let Some(a) = d.attr(s.name).cloned() {
                    let mut out = String::new();
                    write_format_attr(&mut out, s, &a);
                    self.push(&out);
                } else if let Some(&v) = operand_segment(m, op, ods, *dy).first() {
                    self.print_values(&[v]);
                } else {
                    return false;
                }
                true
            }
            _ => false,
        }
    }
}

/// Names of the attributes a format prints outside `attr-dict`.
fn collect_attrs(elems: &[Elem], out: &mut Vec<&'static str>) {
    for e in elems {
        match e {
            Elem::Var(Var::Attr(a)) => out.push(a.name),
            Elem::Custom(_, vars) => {
                for v in vars {
                    if let Var::Attr(a) = v {
                        out.push(a.name);
                    }
                }
            }
            Elem::Optional { elems, .. } => collect_attrs(elems, out),
            _ => {}
        }
    }
}

/// The printed form of a default given as C++ (`false`, `-1`, `{}`,
/// `RoundMode::RINT`).
fn default_text(a: &OdsAttr, def: &str) -> String {
    if def == "{}" {
        return "[]".into();
    }
    if a.kind.starts_with("enum:") {
        let case = def.rsplit("::").next().unwrap_or(def);
        return format!("<{}>", case.to_ascii_lowercase());
    }
    def.to_string()
}

/// An attribute as a format prints it.
pub(crate) fn write_format_attr(out: &mut String, a: &OdsAttr, v: &Attribute) {
    if let Some(full) = a.kind.strip_prefix("enum:") {
        let (dialect, mnemonic) = full.split_once('.').unwrap_or((full, ""));
        if let Attribute::Dialect {
            dialect: d,
            mnemonic: mn,
            params: Some(p),
        } = v
        {
            if d == dialect && mn == mnemonic {
                let _ = write!(out, "<{p}>");
                return;
            }
        }
    }
    match (a.kind, v) {
        (k, Attribute::DenseArray { values, .. }) if k.starts_with("array:") => {
            out.push('[');
            for (i, x) in values.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{x}");
            }
            out.push(']');
        }
        (k, Attribute::Integer { value, .. }) if k.starts_with("int:") => {
            let _ = write!(out, "{value}");
        }
        (k, Attribute::Float { bits, ty }) if k.starts_with("float:") => {
            let kind = match ty {
                crate::ir::Type::Float(k) => *k,
                _ => crate::ir::FloatKind::F64,
            };
            out.push_str(&crate::print::format_float(f64::from_bits(*bits), kind));
        }
        _ => write_attr(out, v, true),
    }
}
