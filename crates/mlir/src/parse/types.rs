//! Reading types and attributes.

use crate::ir::{
    Attribute, FloatKind, FunctionType, Layout, MemRefType, NamedAttrs, Signedness, Type,
    VectorType, DYNAMIC,
};
use crate::parse::cursor::{PResult, MAX_DEPTH};
use crate::parse::Parser;

impl<'a> Parser<'a> {
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.c.err("nesting too deep");
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Reads a type.
    pub(crate) fn parse_type(&mut self) -> PResult<Type> {
        self.enter()?;
        let r = self.parse_type_inner();
        self.leave();
        r
    }

    fn parse_type_inner(&mut self) -> PResult<Type> {
        match self.c.peek() {
            Some(b'(') => return self.parse_function_type().map(Type::Function),
            Some(b'!') => {
                let start = self.c.pos();
                self.c.expect("!")?;
                let name = match self.c.suffix_id() {
                    Some(n) => n,
                    None => return self.c.err("expected type alias or dialect type after '!'"),
                };
                if let Some(t) = self.type_aliases.get(name) {
                    return Ok(t.clone());
                }
                let has_body = self.c.at_lt();
                if !name.contains('.') && !has_body {
                    return self
                        .c
                        .err_at(start, format!("undefined symbol alias id '{name}'"));
                }
                // The text as MLIR prints it: no space before the body.
                let body = if has_body { self.c.balanced()? } else { "" };
                return Ok(Type::Opaque(self.expand_aliases(&format!("!{name}{body}"))));
            }
            _ => {}
        }
        let start = self.c.pos();
        let Some(word) = self.c.ident() else {
            let found = self.c.describe_next();
            return self.c.err(format!("expected type, found {found}"));
        };
        if let Some(t) = scalar_type(word) {
            return Ok(t);
        }
        if matches!(word, "memref" | "vector" | "tensor") && self.c.peek_raw(0) == Some(b'<') {
            let after_word = self.c.pos();
            if let Ok(text) = self.c.balanced() {
                let full = self.c.slice(start, start + word.len() + text.len());
                if let Some(t) = self.type_memo.get(full) {
                    return Ok(t.clone());
                }
            }
            self.c.reset(after_word);
            let t = match word {
                "memref" => self.parse_memref(),
                "vector" => self.parse_vector(),
                _ => self.parse_tensor(),
            }?;
            let end = self.c.pos();
            self.type_memo.insert(self.c.slice(start, end), t.clone());
            return Ok(t);
        }
        match word {
            "memref" => self.parse_memref(),
            "vector" => self.parse_vector(),
            "tensor" => self.parse_tensor(),
            "tuple" => Ok(Type::Tuple(self.parse_delimited(
                "<",
                ">",
                Self::parse_type,
            )?)),
            "complex" => {
                self.c.balanced()?;
                let end = self.c.pos();
                Ok(Type::Opaque(self.c.slice(start, end).to_string()))
            }
            _ => self.c.err_at(start, format!("unknown type '{word}'")),
        }
    }

    /// Reads `(T, U) -> V` / `(T) -> (U, V)`.
    pub(crate) fn parse_function_type(&mut self) -> PResult<FunctionType> {
        let inputs = self.parse_paren_type_list()?;
        self.c.expect("->")?;
        let results = self.parse_result_types()?;
        Ok(FunctionType { inputs, results })
    }

    /// Reads `(T, U)` (possibly empty).
    pub(crate) fn parse_paren_type_list(&mut self) -> PResult<Vec<Type>> {
        self.parse_delimited("(", ")", Self::parse_type)
    }

    /// Reads `open item, item close` (possibly empty), each item with
    /// `item`: the comma-separated lists of types, attributes and strides.
    fn parse_delimited<T>(
        &mut self,
        open: &str,
        close: &str,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        self.c.expect(open)?;
        let mut out = Vec::new();
        if self.c.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            if self.c.eat(close) {
                return Ok(out);
            }
            self.c.expect(",")?;
        }
    }

    /// Reads result types after `->`: `T` or `(T, U)`.
    pub(crate) fn parse_result_types(&mut self) -> PResult<Vec<Type>> {
        if self.c.peek() == Some(b'(') {
            // `(T) -> U` is a function type, not a parenthesised list.
            let p = self.c.pos();
            let list = self.parse_paren_type_list()?;
            if self.c.looking_at("->") {
                self.c.reset(p);
                return Ok(vec![self.parse_type()?]);
            }
            return Ok(list);
        }
        Ok(vec![self.parse_type()?])
    }

    /// Reads `T, U, V` (at least one).
    pub(crate) fn parse_type_list(&mut self) -> PResult<Vec<Type>> {
        let mut out = vec![self.parse_type()?];
        while self.c.eat(",") {
            out.push(self.parse_type()?);
        }
        Ok(out)
    }

    /// Reads `4x?x` dimension prefixes; stops before the element type.
    fn parse_dims(&mut self, allow_scalable: bool) -> PResult<(Vec<i64>, Vec<bool>)> {
        let mut shape = Vec::new();
        let mut scalable = Vec::new();
        loop {
            self.c.skip_ws();
            let p = self.c.pos();
            let (dim, sc) = if self.c.peek_raw(0) == Some(b'?') {
                self.c.reset(p + 1);
                (DYNAMIC, false)
            } else if allow_scalable && self.c.peek_raw(0) == Some(b'[') {
                self.c.reset(p + 1);
                let Some(v) = self.c.integer() else {
                    return self.c.err("expected scalable dimension size");
                };
                self.c.expect("]")?;
                (v as i64, true)
            } else if self.c.peek_raw(0).is_some_and(|b| b.is_ascii_digit()) {
                let bytes = self.c.rest().as_bytes();
                let n = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
                let text = &self.c.rest()[..n];
                let Ok(v) = text.parse::<i64>() else {
                    return self.c.err("dimension size too large");
                };
                self.c.reset(p + n);
                (v, false)
            } else {
                return Ok((shape, scalable));
            };
            if self.c.peek_raw(0) != Some(b'x') {
                return self.c.err("expected 'x' in dimension list");
            }
            self.c.reset(self.c.pos() + 1);
            shape.push(dim);
            scalable.push(sc);
        }
    }

    /// The `*x` of an unranked `memref<*xT>` / `tensor<*xT>`, after the
    /// `<`: whether it was there.
    fn eat_unranked(&mut self) -> PResult<bool> {
        if !self.c.eat("*") {
            return Ok(false);
        }
        if self.c.peek_raw(0) != Some(b'x') {
            return self.c.err("expected 'x' after '*'");
        }
        self.c.reset(self.c.pos() + 1);
        Ok(true)
    }

    fn parse_memref(&mut self) -> PResult<Type> {
        self.c.expect("<")?;
        if self.eat_unranked()? {
            let elem = self.parse_type()?;
            let memory_space = if self.c.eat(",") {
                Some(std::sync::Arc::new(self.parse_attribute()?))
            } else {
                None
            };
            self.c.expect(">")?;
            return Ok(Type::UnrankedMemRef {
                elem: Box::new(elem),
                memory_space,
            });
        }
        let (shape, _) = self.parse_dims(false)?;
        let elem = self.parse_type()?;
        let mut layout = Layout::Identity;
        let mut memory_space = None;
        while self.c.eat(",") {
            if memory_space.is_some() {
                return self.c.err("unexpected entry after memory space");
            }
            if self.c.looking_at_keyword("strided") && {
                let p = self.c.pos();
                self.c.eat_keyword("strided");
                let lt = self.c.at_lt();
                self.c.reset(p);
                lt
            } {
                if !matches!(layout, Layout::Identity) {
                    return self.c.err("memref has two layouts");
                }
                self.c.skip_ws();
                let sp = self.c.pos();
                layout = self.parse_strided()?;
                if let Layout::Strided { strides, .. } = &layout {
                    if strides.len() != shape.len() {
                        return self.c.err_at(
                            sp,
                            format!(
                                "expected {} strides in strided layout, found {}",
                                shape.len(),
                                strides.len()
                            ),
                        );
                    }
                }
                continue;
            }
            let a = self.parse_attribute()?;
            let is_map = matches!(&a, Attribute::Opaque(t) if t.starts_with("affine_map<"));
            if is_map && matches!(layout, Layout::Identity) {
                layout = Layout::Map(Box::new(a));
            } else {
                memory_space = Some(std::sync::Arc::new(a));
            }
        }
        self.c.expect(">")?;
        Ok(Type::MemRef(MemRefType {
            shape,
            elem: Box::new(elem),
            layout,
            memory_space,
        }))
    }

    /// Reads `strided<[s, ...], offset: o>`.
    fn parse_strided(&mut self) -> PResult<Layout> {
        self.c.expect("strided")?;
        self.c.expect("<")?;
        let strides = self.parse_delimited("[", "]", Self::parse_static_or_dynamic)?;
        let mut offset = 0;
        if self.c.eat(",") {
            self.c.expect("offset")?;
            self.c.expect(":")?;
            offset = self.parse_static_or_dynamic()?;
        }
        self.c.expect(">")?;
        Ok(Layout::Strided { strides, offset })
    }

    /// Reads an integer or `?`.
    pub(crate) fn parse_static_or_dynamic(&mut self) -> PResult<i64> {
        if self.c.eat("?") {
            return Ok(DYNAMIC);
        }
        match self.c.integer() {
            Some(v) => i64::try_from(v).or_else(|_| self.c.err("integer out of range")),
            None => self.c.err("expected integer or '?'"),
        }
    }

    fn parse_vector(&mut self) -> PResult<Type> {
        self.c.skip_ws();
        let open = self.c.pos();
        self.c.expect("<")?;
        let (shape, scalable) = self.parse_dims(true)?;
        let elem = self.parse_type()?;
        if self.c.eat(",") {
            // The AVE dialect's vectors carry a layout attribute
            // (`vector<64xi1, #ave.vector_layout<..>>`): kept as written.
            self.parse_attribute()?;
            self.c.expect(">")?;
            let text = self.c.slice(open, self.c.pos());
            return Ok(Type::Opaque(format!("vector{}", self.expand_aliases(text))));
        }
        self.c.expect(">")?;
        Ok(Type::Vector(VectorType {
            shape,
            scalable,
            elem: Box::new(elem),
        }))
    }

    fn parse_tensor(&mut self) -> PResult<Type> {
        self.c.expect("<")?;
        if self.eat_unranked()? {
            let elem = self.parse_type()?;
            self.c.expect(">")?;
            return Ok(Type::UnrankedTensor(Box::new(elem)));
        }
        let (shape, _) = self.parse_dims(false)?;
        let elem = self.parse_type()?;
        let encoding = if self.c.eat(",") {
            Some(Box::new(self.parse_attribute()?))
        } else {
            None
        };
        self.c.expect(">")?;
        Ok(Type::Tensor {
            shape,
            elem: Box::new(elem),
            encoding,
        })
    }

    /// Reads an attribute.
    pub(crate) fn parse_attribute(&mut self) -> PResult<Attribute> {
        self.enter()?;
        let r = self.parse_attribute_inner();
        self.leave();
        r
    }

    fn parse_attribute_inner(&mut self) -> PResult<Attribute> {
        self.c.skip_ws();
        let start = self.c.pos();
        match self.c.peek() {
            None => self.c.err("expected attribute, found end of input"),
            Some(b'[') => Ok(Attribute::Array(self.parse_delimited(
                "[",
                "]",
                Self::parse_attribute,
            )?)),
            Some(b'{') => Ok(Attribute::Dict(self.parse_dict()?)),
            Some(b'"') => Ok(Attribute::String(self.c.string()?)),
            Some(b'@') => self.parse_symbol_ref(),
            Some(b'#') => self.parse_hash_attribute(),
            Some(b'<') => {
                let text = self.c.balanced()?;
                Ok(Attribute::Opaque(self.expand_aliases(text)))
            }
            Some(b'-') | Some(b'0'..=b'9') => self.parse_number_attr(),
            Some(b'(') | Some(b'!') => Ok(Attribute::Type(self.parse_type()?)),
            Some(_) => {
                let p = self.c.pos();
                let Some(word) = self.c.ident() else {
                    let found = self.c.describe_next();
                    return self.c.err(format!("expected attribute, found {found}"));
                };
                match word {
                    "true" => return Ok(Attribute::Bool(true)),
                    "false" => return Ok(Attribute::Bool(false)),
                    "unit" => return Ok(Attribute::Unit),
                    "array" if self.c.at_lt() => return self.parse_dense_array(start),
                    "dense" | "dense_resource" | "sparse" => {
                        if !self.c.at_lt() {
                            return self.c.err(format!("expected '<' after '{word}'"));
                        }
                        let open = self.c.pos();
                        let body = self.c.balanced()?;
                        let body_end = self.c.pos();
                        if word == "dense" {
                            // Kept as text when not canonicalized below: check
                            // it is a literal, so nothing else hides in it.
                            let inner = &body[1..body.len() - 1];
                            if let Err((at, msg)) = crate::parse::dense::check_literal(inner) {
                                return self.c.err_at(open + 1 + at, msg);
                            }
                        }
                        // Elements attributes carry their type: keep it in the text.
                        let save = self.c.pos();
                        let mut ty = None;
                        if self.c.eat(":") {
                            ty = Some(self.parse_type()?);
                        } else {
                            self.c.reset(save);
                        }
                        let end = self.c.pos();
                        let elem = ty.as_ref().and_then(Type::element_type);
                        if let (Some(elem), "dense") = (elem, word) {
                            let inner = &body[1..body.len() - 1];
                            if let Some(c) = crate::parse::dense::canonical_dense(inner, elem) {
                                let ty_text =
                                    ty.as_ref().map(|t| t.to_string()).unwrap_or_default();
                                return Ok(Attribute::Opaque(format!("dense<{c}> : {ty_text}")));
                            }
                        }
                        // As MLIR prints it: no space between the keyword and
                        // its body.
                        let text = format!("{word}{body}{}", self.c.slice(body_end, end));
                        return Ok(Attribute::Opaque(self.expand_aliases(&text)));
                    }
                    "affine_map" | "affine_set" | "strided" | "distinct" | "loc" | "opaque"
                        if self.c.at_lt()
                            || matches!(self.c.peek_raw(0), Some(b'(') | Some(b'[')) =>
                    {
                        // One bracket group (`distinct[0]<...>` has two); what
                        // follows, e.g. `(%d)` of `affine.apply`, is not ours.
                        let groups = if word == "distinct" { 2 } else { 1 };
                        let mut text = word.to_string();
                        let mut body_open = 0;
                        for g in 0..groups {
                            let lt = g == 0 || self.c.at_lt();
                            if lt || matches!(self.c.peek_raw(0), Some(b'(') | Some(b'[')) {
                                let open = self.c.pos();
                                let group = self.c.balanced()?;
                                if group.starts_with('<') {
                                    body_open = open + 1;
                                }
                                text.push_str(group);
                            }
                        }
                        if word == "affine_map" && text.ends_with('>') {
                            // The body is kept as text: check it is a map, so
                            // no alias or stray word hides in it.
                            let body = self.c.slice(body_open, self.c.pos() - 1);
                            if let Err((at, msg)) = crate::parse::affine_map::check(body) {
                                return self.c.err_at(body_open + at, msg);
                            }
                        }
                        return Ok(Attribute::Opaque(self.expand_aliases(&text)));
                    }
                    _ => {}
                }
                self.c.reset(p);
                Ok(Attribute::Type(self.parse_type()?))
            }
        }
    }

    fn parse_number_attr(&mut self) -> PResult<Attribute> {
        let p = self.c.pos();
        if let Some(v) = self.c.integer() {
            let save = self.c.pos();
            if self.c.eat(":") && !self.c.looking_at(":") {
                let ty = self.parse_type()?;
                return match ty {
                    Type::Float(k) => {
                        // Hex bit patterns of floats (`0x7FC00000 : f32`).
                        let text = self.c.slice(p, save).trim();
                        let bits = u64::try_from(v).unwrap_or(0);
                        let value = if text.starts_with("0x") {
                            bits_to_f64(bits, k)
                        } else {
                            v as f64
                        };
                        Ok(Attribute::float(value, Type::Float(k)))
                    }
                    Type::Integer { .. } | Type::Index => Ok(Attribute::Integer { value: v, ty }),
                    _ => self
                        .c
                        .err_at(save, "integer attribute needs an integer or index type"),
                };
            }
            self.c.reset(save);
            return Ok(Attribute::Integer {
                value: v,
                ty: Type::i64(),
            });
        }
        let Some((v, _)) = self.c.float(false) else {
            return self.c.err("expected number");
        };
        let save = self.c.pos();
        if self.c.eat(":") {
            let ty = self.parse_type()?;
            return match ty {
                Type::Float(_) => Ok(Attribute::float(v, ty)),
                _ => self.c.err_at(save, "float attribute needs a float type"),
            };
        }
        self.c.reset(save);
        Ok(Attribute::float(v, Type::Float(FloatKind::F64)))
    }

    fn parse_dense_array(&mut self, start: usize) -> PResult<Attribute> {
        self.c.expect("<")?;
        let elem = self.parse_type()?;
        let mut values = Vec::new();
        let is_int = matches!(elem, Type::Integer { .. });
        if !is_int {
            // Float dense arrays: keep the text.
            let p = self.c.pos();
            self.c.reset(start);
            self.c.ident();
            self.c.balanced()?;
            let end = self.c.pos();
            let _ = p;
            return Ok(Attribute::Opaque(
                self.expand_aliases(self.c.slice(start, end)),
            ));
        }
        if self.c.eat(":") {
            loop {
                if self.c.eat_keyword("true") {
                    values.push(1);
                } else if self.c.eat_keyword("false") {
                    values.push(0);
                } else {
                    match self.c.integer().and_then(|v| i64::try_from(v).ok()) {
                        Some(v) => values.push(v),
                        None => return self.c.err("expected integer in dense array"),
                    }
                }
                if !self.c.eat(",") {
                    break;
                }
            }
        }
        self.c.expect(">")?;
        Ok(Attribute::DenseArray { elem, values })
    }

    pub(crate) fn parse_symbol_ref(&mut self) -> PResult<Attribute> {
        let root = self.parse_symbol_name()?;
        let mut nested = Vec::new();
        while self.c.looking_at("::@") {
            self.c.expect("::")?;
            nested.push(self.parse_symbol_name()?);
        }
        Ok(Attribute::SymbolRef { root, nested })
    }

    /// Reads `@name` or `@"name"`.
    pub(crate) fn parse_symbol_name(&mut self) -> PResult<String> {
        self.c.expect("@")?;
        if self.c.peek_raw(0) == Some(b'"') {
            return self.c.string();
        }
        match self.c.suffix_id() {
            Some(s) => Ok(s.to_string()),
            None => self.c.err("expected symbol name after '@'"),
        }
    }

    fn parse_hash_attribute(&mut self) -> PResult<Attribute> {
        let start = self.c.pos();
        self.c.expect("#")?;
        let Some(name) = self.c.suffix_id() else {
            return self
                .c
                .err("expected attribute alias or dialect attribute after '#'");
        };
        if let Some(a) = self.attr_aliases.get(name) {
            return Ok(a.clone());
        }
        match name.split_once('.') {
            Some((dialect, mnemonic)) if !dialect.is_empty() && !mnemonic.is_empty() => {
                let params = if self.c.at_lt() {
                    let text = self.c.balanced()?;
                    Some(self.expand_aliases(&text[1..text.len() - 1]))
                } else {
                    None
                };
                Ok(Attribute::Dialect {
                    dialect: dialect.to_string(),
                    mnemonic: mnemonic.to_string(),
                    params,
                })
            }
            _ => {
                if self.c.at_lt() {
                    let body = self.c.balanced()?;
                    return Ok(Attribute::Opaque(
                        self.expand_aliases(&format!("#{name}{body}")),
                    ));
                }
                self.c
                    .err_at(start, format!("undefined symbol alias id '{name}'"))
            }
        }
    }

    /// Text kept verbatim (dialect parameters, enum keywords) with the
    /// attribute aliases it mentions (`#map`) replaced by what they stand
    /// for, so that the text means the same once the aliases are gone.
    pub(crate) fn expand_aliases(&self, text: &str) -> String {
        if !text.contains('#') || self.attr_aliases.is_empty() {
            return text.to_string();
        }
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        let mut in_string = false;
        while i < bytes.len() {
            let b = bytes[i];
            if in_string {
                if b == b'\\' && i + 1 < bytes.len() {
                    out.push_str(&text[i..i + 2]);
                    i += 2;
                    continue;
                }
                in_string = b != b'"';
            } else if b == b'"' {
                in_string = true;
            } else if b == b'#' {
                let end = text[i + 1..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || "_$.-".contains(c)))
                    .map_or(text.len(), |k| i + 1 + k);
                if let Some(a) = self.attr_aliases.get(&text[i + 1..end]) {
                    out.push_str(&a.to_string());
                    i = end;
                    continue;
                }
            }
            let ch_len = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[i..i + ch_len]);
            i += ch_len;
        }
        out
    }

    /// Reads `{name = attr, unit_name, "quoted" = attr}`.
    pub(crate) fn parse_dict(&mut self) -> PResult<NamedAttrs> {
        self.c.expect("{")?;
        let mut d = NamedAttrs::new();
        if self.c.eat("}") {
            return Ok(d);
        }
        loop {
            let p = self.c.pos();
            let name = if self.c.peek() == Some(b'"') {
                self.c.string()?
            } else {
                match self.c.ident() {
                    Some(n) => n.to_string(),
                    None => {
                        let found = self.c.describe_next();
                        return self
                            .c
                            .err(format!("expected attribute name, found {found}"));
                    }
                }
            };
            let value = if self.c.eat("=") {
                self.parse_attribute()?
            } else {
                Attribute::Unit
            };
            if d.set(name.clone(), value).is_some() {
                return self
                    .c
                    .err_at(p, format!("duplicate key '{name}' in dictionary attribute"));
            }
            if self.c.eat("}") {
                return Ok(d);
            }
            self.c.expect(",")?;
        }
    }
}

/// The builtin scalar type named `word`, if any.
pub(crate) fn scalar_type(word: &str) -> Option<Type> {
    match word {
        "index" => return Some(Type::Index),
        "none" => return Some(Type::None),
        _ => {}
    }
    if let Some((k, _)) = FloatKind::ALL.iter().find(|(_, s)| *s == word) {
        return Some(Type::Float(*k));
    }
    let (signedness, digits) = if let Some(d) = word.strip_prefix("si") {
        (Signedness::Signed, d)
    } else if let Some(d) = word.strip_prefix("ui") {
        (Signedness::Unsigned, d)
    } else if let Some(d) = word.strip_prefix('i') {
        (Signedness::Signless, d)
    } else {
        return None;
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let width: u32 = digits.parse().ok()?;
    if width == 0 || width > 1 << 24 {
        return None;
    }
    Some(Type::Integer { width, signedness })
}

fn bits_to_f64(bits: u64, k: FloatKind) -> f64 {
    match k {
        FloatKind::F16 => f64::from(half::f16::from_bits(bits as u16)),
        FloatKind::BF16 => f64::from(half::bf16::from_bits(bits as u16)),
        FloatKind::F32 | FloatKind::TF32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}
