//! Reading the upstream ops whose operands sit inside an affine map:
//! `affine.load`/`affine.store` (`%m[%i + 1, 0]`, `symbol(%s)` for a
//! symbol), `memref.transpose %v (d0, d1) -> (d1, d0)` and
//! `symbol.symbolic_int @s0 [%a], affine_map<...>` and
//! `symbol.bind_symbolic_shape %v, [%s0], affine_map<...> : T`.
//!
//! Storage, as MLIR keeps them: the subscripts become the `map` attribute
//! (`affine_map<(d0, d1)[s0] -> (d0 + 1, s0)>`, one dim per distinct SSA
//! value in order of first use, symbols likewise) and the map operands
//! (dims then symbols) the last operand segment; a transpose keeps its
//! `permutation` map; a symbolic int its `symbol_name`, `int_symbols`
//! operands and `int_expressions` map; a shape binding its value and
//! symbols as two segments and the `shape_expressions` map. Maps are kept as text (whitespace
//! collapsed), so printing substitutes the operands back.

use crate::ir::{Attribute, Type, ValueId};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::{Operand, Parser};

impl Parser<'_> {
    /// `[expr, ...]` over SSA values: the map text and its operands (dims
    /// then symbols).
    pub(crate) fn parse_affine_subscripts(&mut self) -> PResult<(String, Vec<Operand>)> {
        self.c.expect("[")?;
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
            } else {
                body.push(ch as char);
            }
            self.c.reset(p + 1);
        }
        let body = collapse(&body);
        let map = map_text(dims.len(), syms.len(), &body);
        for o in dims.iter().chain(&syms) {
            self.check_types(std::slice::from_ref(o), &[Type::Index])?;
        }
        dims.extend(syms);
        Ok((map, dims))
    }

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
fn collapse(s: &str) -> String {
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
