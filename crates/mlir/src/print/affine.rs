//! Printing the ops whose operands sit inside an affine map (see
//! `parse/affine.rs`): the map's results with each `dN` replaced by its
//! operand and each `sN` by `symbol(operand)`, as MLIR's
//! `printAffineMapOfSSAIds` does.

use crate::ir::{Attribute, OpId, ValueId};
use crate::print::ops::OpPrinter;

/// The `(inputs)` and `(results)` texts of `affine_map<(..)[..] -> (..)>`.
fn map_parts(map: &str) -> Option<(&str, &str)> {
    let inner = map.strip_prefix("affine_map<")?.strip_suffix('>')?;
    let (ins, outs) = inner.split_once(" -> ")?;
    Some((ins.trim(), outs.trim()))
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
