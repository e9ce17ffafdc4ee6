//! The `affine` ops in custom form: `affine.apply/min/max #map(%d)[%s]`,
//! and `affine.load`/`affine.store`, whose operands sit inside an affine
//! map (`%m[%i + 1, 0]`, `symbol(%s)` for a symbol).
//!
//! Storage, as MLIR keeps them: the subscripts become the `map` attribute
//! (`affine_map<(d0, d1)[s0] -> (d0 + 1, s0)>`, one dim per distinct SSA
//! value in order of first use, symbols likewise) and the map operands
//! (dims then symbols) the last operand segment. Maps are kept as text
//! (whitespace collapsed); printing substitutes the operands back, as
//! MLIR's `printAffineMapOfSSAIds` does. The map helpers here also serve
//! `memref.transpose` ([`super::memref`]).

use std::fmt::Write;

use crate::ir::{Attribute, OpId, Type, ValueId};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Operand;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;
use crate::print::types::write_attr;

/// The custom forms of the dialect's ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `affine.apply/min/max #map(%d)[%s]`.
    AffineMap,
    /// `affine.load %m[%i + 1, 0] : memref<..>` (subscripts are a map).
    Load,
    /// `affine.store %v, %m[%i, symbol(%s)] : memref<..>`.
    Store,
}

/// The form of `affine.<op>` (`op` without the dialect prefix).
pub(super) fn form(op: &str) -> Option<super::Form> {
    Some(match op {
        "apply" | "min" | "max" => super::Form::Affine(Form::AffineMap),
        "load" => super::Form::Affine(Form::Load),
        "store" => super::Form::Affine(Form::Store),
        _ => return None,
    })
}

impl Parser<'_> {
    /// Reads the rest of an `affine` op in custom form (after its name).
    pub(crate) fn parse_affine_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::AffineMap => self.parse_affine_map_op(b),
            Form::Load => self.parse_affine_access(b, false),
            Form::Store => self.parse_affine_access(b, true),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints an `affine` op in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_affine_op(&mut self, op: OpId, form: Form, name: &str) -> bool {
        match form {
            Form::AffineMap => self.print_affine_map_op(op, name),
            Form::Load => self.print_affine_access(op, name, false),
            Form::Store => self.print_affine_access(op, name, true),
        }
    }
}

// `affine.apply/min/max #map(%d)[%s] {attrs}`.

impl Parser<'_> {
    pub(crate) fn parse_affine_map_op(&mut self, b: &mut Built) -> PResult<()> {
        let map = self.parse_attribute()?;
        b.spec.attrs.set("map", map);
        self.c.expect("(")?;
        let dims = self.parse_operand_list()?;
        self.c.expect(")")?;
        let syms = self.parse_opt_bracket_operands()?;
        self.parse_opt_attr_dict(b)?;
        self.check_all(&dims, &Type::Index)?;
        self.check_all(&syms, &Type::Index)?;
        b.spec.segments = vec![dims.len() as u32, syms.len() as u32];
        b.operands(&dims);
        b.operands(&syms);
        b.spec.result_types = vec![Type::Index];
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_affine_map_op(&mut self, op: OpId, name: &str) -> bool {
        let m = self.m;
        let d = m.op(op);
        let Some(map) = d.attr("map") else {
            return false;
        };
        let dims = d.segment(0).to_vec();
        let syms = d.segment(1).to_vec();
        let _ = write!(self.out, "{name} ");
        write_attr(&mut self.out, map, false);
        self.out.push('(');
        self.values(&dims);
        self.out.push(')');
        if !syms.is_empty() {
            self.out.push('[');
            self.values(&syms);
            self.out.push(']');
        }
        self.attr_dict(op, &["map"]);
        true
    }
}

// `affine.load %m[subscripts] {attrs} : T` and `affine.store %v, %m[subscripts] {attrs} : T`.

impl Parser<'_> {
    /// `affine.load %m[subscripts] {attrs} : memref<...>` and
    /// `affine.store %v, %m[subscripts] {attrs} : memref<...>`.
    pub(crate) fn parse_affine_access(&mut self, b: &mut Built, store: bool) -> PResult<()> {
        let mut lead = Vec::new();
        if store {
            lead.push(self.parse_operand()?);
            self.c.expect(",")?;
        }
        let mem = self.parse_operand()?;
        let (map, idx) = self.parse_affine_subscripts()?;
        b.spec.attrs.set("map", Attribute::Opaque(map));
        self.finish_memory_access(b, lead, mem, idx)
    }
}

impl OpPrinter<'_> {
    /// `affine.load`/`affine.store`.
    pub(crate) fn print_affine_access(&mut self, op: OpId, name: &str, store: bool) -> bool {
        let m = self.module();
        let d = m.op(op);
        let base = usize::from(store);
        let (Some(Attribute::Opaque(map)), Some(&mem), true) = (
            d.attr("map"),
            d.segment(base).first(),
            d.segments.len() == base + 2,
        ) else {
            return false;
        };
        let idx = d.segment(base + 1).to_vec();
        let start = self.len();
        self.push(name);
        self.push(" ");
        if store {
            self.print_values(&[d.operands()[0]]);
            self.push(", ");
        }
        self.print_values(&[mem]);
        if !self.affine_subscripts(map, &idx) {
            self.truncate(start);
            return false;
        }
        self.print_attr_dict(op, &["map"]);
        self.push(" : ");
        self.print_type(m.value_type(mem));
        true
    }
}

// Subscripts: reading them into a map and printing them back.

impl Parser<'_> {
    /// `[expr, ...]` over SSA values: the map text and its operands (dims
    /// then symbols).
    pub(crate) fn parse_affine_subscripts(&mut self) -> PResult<(String, Vec<Operand>)> {
        self.c.expect("[")?;
        let open = self.c.pos();
        let mut dims: Vec<Operand> = Vec::new();
        let mut syms: Vec<Operand> = Vec::new();
        let mut body = String::new();
        let mut depth = 0usize;
        loop {
            let Some(ch) = self.c.peek_raw(0) else {
                return self.c.err("expected ']' after affine subscripts");
            };
            let p = self.c.pos();
            match ch {
                b']' if depth == 0 => {
                    self.c.reset(p + 1);
                    break;
                }
                b'(' => depth += 1,
                b')' => depth = depth.saturating_sub(1),
                b'%' => {
                    let o = self.parse_operand()?;
                    body.push_str(&slot(&mut dims, o, 'd'));
                    continue;
                }
                b's' if self.c.rest().starts_with("symbol(") => {
                    self.c.reset(p + "symbol(".len());
                    let o = self.parse_operand()?;
                    self.c.expect(")")?;
                    body.push_str(&slot(&mut syms, o, 's'));
                    continue;
                }
                // A bare dim/symbol id has no meaning in subscripts.
                b'd' | b's'
                    if !prev_is_word(&body)
                        && self.c.rest()[1..].starts_with(|c: char| c.is_ascii_digit()) =>
                {
                    return self
                        .c
                        .err("expected an SSA value or constant in affine subscript");
                }
                _ => {}
            }
            if ch.is_ascii_whitespace() {
                if !body.ends_with(' ') && !body.is_empty() {
                    body.push(' ');
                }
                self.c.reset(p + 1);
            } else {
                // Whole characters: the check below rejects what is not
                // ASCII, with the character in its message.
                let c = self.c.rest().chars().next().unwrap_or('?');
                body.push(c);
                self.c.reset(p + c.len_utf8());
            }
        }
        let body = collapse(&body);
        let map = map_text(dims.len(), syms.len(), &body);
        // The subscripts are kept as map text: check it is a map over the
        // values, so no stray word or character hides in it.
        if let Some(inner) = map
            .strip_prefix("affine_map<")
            .and_then(|m| m.strip_suffix('>'))
        {
            if let Err((_, msg)) = crate::parse::affine_map::check(inner) {
                let msg = msg.replace(" in affine map", " in affine subscripts");
                return self.c.err_at(open, msg);
            }
        }
        for o in dims.iter().chain(&syms) {
            self.check_types(std::slice::from_ref(o), &[Type::Index])?;
        }
        dims.extend(syms);
        Ok((map, dims))
    }
}

impl OpPrinter<'_> {
    /// `[subscripts]` of `map` over `operands` (dims then symbols).
    fn affine_subscripts(&mut self, map: &str, operands: &[ValueId]) -> bool {
        let Some((ins, outs)) = map_parts(map) else {
            return false;
        };
        let n_dims = ins
            .split_once(')')
            .map(|(d, _)| {
                d.trim_start_matches('(')
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                    .count()
            })
            .unwrap_or(0);
        let Some(body) = outs.strip_prefix('(').and_then(|s| s.strip_suffix(')')) else {
            return false;
        };
        self.push("[");
        let bytes = body.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            let word_before =
                i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
            if (c == b'd' || c == b's') && !word_before {
                let digits = bytes[i + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                if digits > 0 {
                    let k: usize = body[i + 1..i + 1 + digits].parse().unwrap_or(usize::MAX);
                    let idx = if c == b'd' { k } else { n_dims + k };
                    let Some(&v) = operands.get(idx) else {
                        return false;
                    };
                    if c == b's' {
                        self.push("symbol(");
                    }
                    self.print_values(&[v]);
                    if c == b's' {
                        self.push(")");
                    }
                    i += 1 + digits;
                    continue;
                }
            }
            let next = body[i..].chars().next().unwrap_or(' ');
            self.push(next.encode_utf8(&mut [0; 4]));
            i += next.len_utf8();
        }
        self.push("]");
        true
    }
}

/// The `(inputs)` and `(results)` texts of `affine_map<(..)[..] -> (..)>`.
pub(super) fn map_parts(map: &str) -> Option<(&str, &str)> {
    let inner = map.strip_prefix("affine_map<")?.strip_suffix('>')?;
    let (ins, outs) = inner.split_once(" -> ")?;
    Some((ins.trim(), outs.trim()))
}

/// The placeholder (`d0`, `s1`, ...) of `o` in `list`, adding it when new
/// (MLIR reuses the dim of a value used twice).
fn slot(list: &mut Vec<Operand>, o: Operand, prefix: char) -> String {
    let v: ValueId = o.v;
    let i = match list.iter().position(|x| x.v == v) {
        Some(i) => i,
        None => {
            list.push(o);
            list.len() - 1
        }
    };
    format!("{prefix}{i}")
}

fn prev_is_word(body: &str) -> bool {
    body.chars()
        .last()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `s` with whitespace collapsed and one space after each comma, as MLIR
/// prints maps.
pub(super) fn collapse(s: &str) -> String {
    s.split(',')
        .map(|part| part.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `affine_map<(d0, ..)[s0, ..] -> (body)>`.
fn map_text(dims: usize, syms: usize, body: &str) -> String {
    let list = |p: char, n: usize| {
        (0..n)
            .map(|i| format!("{p}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let syms = if syms == 0 {
        String::new()
    } else {
        format!("[{}]", list('s', syms))
    };
    format!("affine_map<({}){syms} -> ({body})>", list('d', dims))
}
