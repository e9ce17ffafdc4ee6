//! Reading operations: the generic form and the custom forms.

use crate::dialect::{custom_form, Form};
use crate::ir::ops::{ARG_ATTRS, CUSTOM_MACRO_OP, CUSTOM_NAME, CUSTOM_OP};
use crate::ir::{
    Attribute, BlockId, InsertPoint, Location, NamedAttrs, OpSpec, Piece, RegionId, Syntax, Type,
    ValueId, DYNAMIC,
};
use crate::parse::cursor::PResult;
use crate::parse::{Operand, Parser, KNOWN_DIALECTS};

/// An op read but not yet created: its spec and its filled regions.
pub(crate) struct Built {
    pub(crate) spec: OpSpec,
    pub(crate) regions: Vec<RegionId>,
}

impl Built {
    pub(crate) fn new(name: &str, loc: Location) -> Built {
        Built {
            spec: OpSpec::new(name, loc),
            regions: Vec::new(),
        }
    }

    pub(crate) fn operands(&mut self, ops: &[Operand]) {
        self.spec.operands.extend(ops.iter().map(|o| o.v));
    }
}

/// A mixed static/dynamic list entry while reading.
pub(crate) enum Mixed {
    Static(i64),
    Dynamic(Operand),
}

fn values(ops: &[Operand]) -> Vec<ValueId> {
    ops.iter().map(|o| o.v).collect()
}

impl Parser<'_> {
    /// Reads one operation (with its result bindings) into `block`.
    pub(crate) fn parse_op(&mut self, block: BlockId) -> PResult<()> {
        self.c.skip_ws();
        let op_pos = self.c.pos();
        // MLIR locates an op at its first token, result names included.
        let loc = self.c.loc_at(op_pos);
        let mut results: Vec<(String, usize, usize)> = Vec::new();
        if self.c.peek() == Some(b'%') {
            loop {
                self.c.skip_ws();
                let pos = self.c.pos();
                self.c.expect("%")?;
                let Some(name) = self.c.suffix_id() else {
                    return self.c.err("expected SSA value name after '%'");
                };
                let name = name.to_string();
                let mut count = 1usize;
                if self.c.peek_raw(0) == Some(b':') {
                    self.c.reset(self.c.pos() + 1);
                    match self.c.integer() {
                        Some(n) if n > 0 && n < 1 << 20 => count = n as usize,
                        _ => return self.c.err("expected result count after ':'"),
                    }
                }
                results.push((name, count, pos));
                if !self.c.eat(",") {
                    break;
                }
            }
            self.c.expect("=")?;
        }
        let mut built = if self.c.peek() == Some(b'"') {
            self.parse_generic(loc)?
        } else {
            self.parse_custom(loc)?
        };
        built.spec.loc.src = self.parse_trailing_loc()?;
        super::terminators::check(&self.m, &built.spec.name, &built.regions, &built.spec.loc)?;
        super::terminators::check_yields(
            &self.m,
            &built.spec.name,
            &built.regions,
            built.spec.result_types.len(),
        )?;
        let wanted: usize = results.iter().map(|r| r.1).sum();
        let have = built.spec.result_types.len();
        if !results.is_empty() && wanted != have {
            return self.c.err_at(
                op_pos,
                format!("operation defines {have} results but was provided {wanted} to bind"),
            );
        }
        let op = self.m.create_op(built.spec);
        self.m.adopt_regions(op, &built.regions);
        self.place(op, block);
        let res = self.m.op(op).results().to_vec();
        let mut next = 0;
        for (name, count, pos) in results {
            for i in 0..count {
                self.define(&name, i, res[next], pos)?;
                next += 1;
            }
        }
        Ok(())
    }

    fn check_dialect(&mut self, name: &str, pos: usize, generic: bool) -> PResult<()> {
        if self.opts.allow_unregistered_dialect {
            return Ok(());
        }
        let dialect = name.split('.').next().unwrap_or("");
        if name.contains('.') && KNOWN_DIALECTS.contains(&dialect) {
            return Ok(());
        }
        if generic {
            self.c.err_at(
                pos,
                "operation being parsed with an unregistered dialect. If this is intended, \
                 please use -allow-unregistered-dialect with the MLIR tool used",
            )
        } else {
            self.c.err_at(
                pos,
                format!("Dialect `{dialect}' not found for custom op '{name}' "),
            )
        }
    }

    pub(crate) fn parse_opt_attr_dict(&mut self, b: &mut Built) -> PResult<()> {
        if self.c.peek() == Some(b'{') {
            let d = self.parse_dict()?;
            for (n, a) in d.iter() {
                b.spec.attrs.set(n, a.clone());
            }
        }
        Ok(())
    }

    fn parse_generic(&mut self, loc: Location) -> PResult<Built> {
        self.c.skip_ws();
        let name_pos = self.c.pos();
        let name = self.c.string()?;
        self.check_dialect(&name, name_pos, true)?;
        let mut b = Built::new(&name, loc);
        self.c.expect("(")?;
        let operands = self.parse_operand_list()?;
        self.c.expect(")")?;
        if self.c.eat("[") {
            loop {
                let s = self.parse_successor()?;
                b.spec.successors.push(s);
                if !self.c.eat(",") {
                    break;
                }
            }
            self.c.expect("]")?;
        }
        if self.c.eat("<") {
            let d = self.parse_dict()?;
            self.c.expect(">")?;
            for (n, a) in d.iter() {
                b.spec.attrs.set(n, a.clone());
            }
        }
        if self.c.peek() == Some(b'(') {
            self.c.expect("(")?;
            loop {
                let r = self.m.new_detached_region();
                self.parse_region_of(&name, r)?;
                b.regions.push(r);
                if !self.c.eat(",") {
                    break;
                }
            }
            self.c.expect(")")?;
        }
        self.parse_opt_attr_dict(&mut b)?;
        self.c.expect(":")?;
        let fty = self.parse_function_type()?;
        self.check_types(&operands, &fty.inputs)?;
        b.operands(&operands);
        b.spec.result_types = fty.results;
        if let Some(Attribute::DenseArray { values, .. }) =
            b.spec.attrs.remove("operandSegmentSizes")
        {
            let total: i64 = values.iter().sum();
            if total as usize != operands.len() || values.iter().any(|&v| v < 0) {
                return self
                    .c
                    .err_at(name_pos, "operandSegmentSizes does not match the operands");
            }
            b.spec.segments = values.iter().map(|&v| v as u32).collect();
        }
        Ok(b)
    }

    fn resolve_name(&self, name: &str) -> String {
        match name {
            "module" => return "builtin.module".into(),
            "unrealized_conversion_cast" => return "builtin.unrealized_conversion_cast".into(),
            _ => {}
        }
        if !name.contains('.') {
            if let Some(d) = self.default_dialect.last() {
                return format!("{d}.{name}");
            }
        }
        name.to_string()
    }

    fn parse_custom(&mut self, loc: Location) -> PResult<Built> {
        self.c.skip_ws();
        let name_pos = self.c.pos();
        let Some(word) = self.c.ident() else {
            let found = self.c.describe_next();
            return self
                .c
                .err(format!("expected operation name, found {found}"));
        };
        let name = self.resolve_name(word);
        let form = custom_form(&name);
        if !word.contains('.') && form.is_none() && crate::ir::format::lookup(&name).is_none() {
            let tried = if name != word {
                format!(" (tried '{name}' as well)")
            } else {
                String::new()
            };
            return self
                .c
                .err_at(name_pos, format!("custom op '{word}' is unknown{tried}"));
        }
        if form.is_none() {
            self.check_dialect(&name, name_pos, false)?;
        }
        let mut b = Built::new(&name, loc);
        if form.is_none() {
            if let Some((op, elems)) = crate::ir::format::op_format(&name) {
                let (parts, attrs) = self.parse_ods(op, elems)?;
                for (n, a) in attrs {
                    b.spec.attrs.set(n, a);
                }
                b.operands(&parts.operands);
                b.spec.segments = parts.segments;
                b.spec.result_types = parts.result_types;
                b.spec.successors = parts.successors;
                return Ok(b);
            }
        }
        if form.is_none() && !self.opts.allow_unregistered_dialect && !super::is_lenient_op(&name) {
            // A registered dialect rejects an op it does not define (MLIR:
            // "custom op ... is unknown"); the lenient reader cannot tell
            // where such an op's text ends.
            return self.c.err_at(
                name_pos,
                format!(
                    "custom op '{name}' is unknown: dialect '{}' has no such op; \
                     use -allow-unregistered-dialect to read it anyway",
                    name.split('.').next().unwrap_or("")
                ),
            );
        }
        self.parse_custom_form(form.unwrap_or(Form::Structured), &mut b)?;
        Ok(b)
    }

    /// The tail shared by `memref.load/store` and `affine.load/store`:
    /// `{attrs} : memref<...>`, the checks, and the operand segments
    /// (`[value,] memref, indices`).
    pub(crate) fn finish_memory_access(
        &mut self,
        b: &mut Built,
        lead: Vec<Operand>,
        mem: Operand,
        idx: Vec<Operand>,
    ) -> PResult<()> {
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        self.c.skip_ws();
        let tp = self.c.pos();
        let ty = self.parse_type()?;
        let Some(elem) = ty.element_type().cloned() else {
            return self.c.err_at(tp, "expected a memref type");
        };
        self.check_types(std::slice::from_ref(&mem), std::slice::from_ref(&ty))?;
        if let Some(v) = lead.first() {
            self.check_types(std::slice::from_ref(v), std::slice::from_ref(&elem))?;
            b.spec.segments = vec![1, 1, idx.len() as u32];
        } else {
            b.spec.segments = vec![1, idx.len() as u32];
            b.spec.result_types = vec![elem];
        }
        b.operands(&lead);
        b.operands(&[mem]);
        b.operands(&idx);
        Ok(())
    }

    pub(crate) fn check_all(&mut self, ops: &[Operand], ty: &Type) -> PResult<()> {
        self.check_types(ops, &vec![ty.clone(); ops.len()])
    }

    /// `overflow<nsw>` / `fastmath<fast>` after arith operands.
    pub(crate) fn parse_modifiers(&mut self, b: &mut Built) -> PResult<()> {
        for (kw, attr) in [("overflow", "overflowFlags"), ("fastmath", "fastmath")] {
            if self.c.looking_at(&format!("{kw}<")) {
                let start = self.c.pos();
                self.c.eat(kw);
                self.c.balanced()?;
                let end = self.c.pos();
                let text = self.c.slice(start, end).to_string();
                b.spec.attrs.set(attr, Attribute::Opaque(text));
            }
        }
        Ok(())
    }

    /// `[0, %a, 4]`.
    pub(crate) fn parse_mixed_list(&mut self) -> PResult<Vec<Mixed>> {
        self.c.expect("[")?;
        let mut out = Vec::new();
        if self.c.eat("]") {
            return Ok(out);
        }
        loop {
            if self.c.peek() == Some(b'%') {
                out.push(Mixed::Dynamic(self.parse_operand()?));
            } else {
                self.c.skip_ws();
                let at = self.c.pos();
                match self.c.integer().map(super::static_index) {
                    Some(Ok(v)) => out.push(Mixed::Static(v)),
                    Some(Err(why)) => return self.c.err_at(at, why),
                    None => return self.c.err("expected integer or SSA value"),
                }
            }
            if self.c.eat("]") {
                return Ok(out);
            }
            self.c.expect(",")?;
        }
    }

    pub(crate) fn set_slice(
        &mut self,
        b: &mut Built,
        src: Operand,
        lists: [Vec<Mixed>; 3],
    ) -> PResult<()> {
        let names = ["static_offsets", "static_sizes", "static_strides"];
        let mut segments = vec![1u32];
        let mut operands = vec![src];
        for (list, name) in lists.into_iter().zip(names) {
            let mut statics = Vec::new();
            let mut n = 0;
            for m in list {
                match m {
                    Mixed::Static(v) => statics.push(v),
                    Mixed::Dynamic(o) => {
                        statics.push(DYNAMIC);
                        operands.push(o);
                        n += 1;
                    }
                }
            }
            b.spec.attrs.set(name, Attribute::dense_i64(statics));
            segments.push(n);
        }
        self.check_all(&operands[1..], &Type::Index)?;
        b.operands(&operands);
        b.spec.segments = segments;
        Ok(())
    }

    /// `(%name = %value, ...)`, as in `iter_args(...)` and `scf.while (...)`:
    /// the bound names with their positions, and the values. `what` names
    /// the argument kind in the error for a missing name.
    #[allow(clippy::type_complexity)]
    pub(crate) fn parse_bound_args(
        &mut self,
        what: &str,
    ) -> PResult<(Vec<(String, usize)>, Vec<Operand>)> {
        self.c.expect("(")?;
        let mut names = Vec::new();
        let mut values = Vec::new();
        if self.c.eat(")") {
            return Ok((names, values));
        }
        loop {
            self.c.skip_ws();
            let pos = self.c.pos();
            self.c.expect("%")?;
            let Some(n) = self.c.suffix_id() else {
                return self.c.err(format!("expected {what} name"));
            };
            names.push((n.to_string(), pos));
            self.c.expect("=")?;
            values.push(self.parse_operand()?);
            if self.c.eat(")") {
                return Ok((names, values));
            }
            self.c.expect(",")?;
        }
    }

    /// Adds the implicit terminator `name` to a single-block region whose
    /// last op is not one (MLIR does the same for `scf` bodies).
    pub(crate) fn ensure_terminator(&mut self, r: RegionId, name: &str) {
        let block = match self.m.region_blocks(r).first() {
            Some(&b) => b,
            None => self.m.add_block(r, &[]),
        };
        let has = self.m.last_op(block).is_some_and(|o| self.m.op(o).is(name));
        if !has {
            let loc = self.c.loc_at(self.c.pos());
            self.m
                .build(OpSpec::new(name, loc), InsertPoint::BlockEnd(block));
        }
    }

    /// Reads the pieces of a structured op (see [`Piece`]).
    pub(crate) fn parse_structured(&mut self, b: &mut Built) -> PResult<()> {
        let mut pieces: Vec<Piece> = Vec::new();
        let mut segments: Vec<u32> = Vec::new();
        let mut operands: Vec<Operand> = Vec::new();
        let mut bare: Option<usize> = None;
        let mut results_seen = false;
        loop {
            // Whitespace before the next token, whether or not the previous
            // piece's reader already skipped it.
            let had_space = self
                .c
                .rest()
                .as_bytes()
                .first()
                .is_some_and(|c| c.is_ascii_whitespace())
                || self.c.rest().starts_with("//")
                || self.c.prev_raw().is_some_and(|c| c.is_ascii_whitespace());
            self.c.skip_ws();
            self.c.skip_ws();
            let p = self.c.pos();
            let glue = |pieces: &mut Vec<Piece>| {
                if !had_space {
                    pieces.push(Piece::NoSpace);
                }
            };
            match self.c.peek() {
                None | Some(b'}') | Some(b'^') | Some(b')') | Some(b']') | Some(b',')
                | Some(b'=') => break,
                Some(b'%') => {
                    if !pieces.iter().all(|p| matches!(p, Piece::NoSpace)) || bare.is_some() {
                        break;
                    }
                    let ops = self.parse_operand_list()?;
                    bare = Some(segments.len());
                    pieces.push(Piece::Operands {
                        segment: segments.len(),
                    });
                    segments.push(ops.len() as u32);
                    operands.extend(ops);
                }
                Some(b'"') => {
                    let s = self.c.string()?;
                    if self.c.peek_raw(0) == Some(b'(') {
                        self.c.reset(p);
                        break;
                    }
                    glue(&mut pieces);
                    let custom = matches!(b.spec.name.as_str(), CUSTOM_OP | CUSTOM_MACRO_OP);
                    if custom && !b.spec.attrs.contains(CUSTOM_NAME) {
                        b.spec.attrs.set(CUSTOM_NAME, Attribute::String(s));
                        pieces.push(Piece::AttrValue {
                            name: CUSTOM_NAME.to_string(),
                        });
                    } else {
                        let text = self.c.slice(p, self.c.pos()).to_string();
                        pieces.push(Piece::Text(text));
                    }
                }
                Some(b'<') | Some(b'[') => {
                    let text = self.c.balanced()?;
                    if text.starts_with('[') && text.contains('%') {
                        // `[%a, %b]`: an operand list in brackets.
                        self.c.reset(p);
                        let ops = self.parse_bracket_operands()?;
                        glue(&mut pieces);
                        pieces.push(Piece::Brackets {
                            segment: segments.len(),
                        });
                        segments.push(ops.len() as u32);
                        operands.extend(ops);
                        continue;
                    }
                    if text.contains('%') {
                        return self
                            .c
                            .err_at(p, "SSA values inside brackets are not supported here");
                    }
                    glue(&mut pieces);
                    pieces.push(Piece::Text(self.expand_aliases(text)));
                }
                Some(b'#') => {
                    // Keep the attribute, not its spelling: aliases such as
                    // `#map` are resolved here and re-aliased when printed.
                    let text = self.parse_attribute()?.to_string();
                    glue(&mut pieces);
                    pieces.push(Piece::Text(text));
                }
                Some(b'{') => {
                    if self.looks_like_region() {
                        let r = self.m.new_detached_region();
                        let name = b.spec.name.clone();
                        self.parse_region_of(&name, r)?;
                        pieces.push(Piece::Region(b.regions.len()));
                        b.regions.push(r);
                    } else {
                        if pieces.contains(&Piece::AttrDict) {
                            return self.c.err("two attribute dictionaries");
                        }
                        self.parse_opt_attr_dict(b)?;
                        pieces.push(Piece::AttrDict);
                    }
                }
                Some(b'(') => {
                    glue(&mut pieces);
                    let (seg, typed) = self.parse_group(&mut segments, &mut operands)?;
                    pieces.push(Piece::Group {
                        keyword: String::new(),
                        segment: seg,
                        typed,
                    });
                }
                Some(b'-') if self.c.looking_at("->") => {
                    if results_seen {
                        return self.c.err_at(p, "result types given twice");
                    }
                    self.c.expect("->")?;
                    let parens = self.c.peek() == Some(b'(');
                    b.spec.result_types = if parens {
                        self.parse_paren_type_list()?
                    } else {
                        self.parse_type_list()?
                    };
                    results_seen = true;
                    pieces.push(Piece::Results {
                        arrow: true,
                        parens,
                    });
                }
                Some(b':') => {
                    self.c.expect(":")?;
                    if let (Some(seg), false) = (bare, pieces.contains(&Piece::OperandTypes)) {
                        let start: usize = segments[..seg].iter().map(|&n| n as usize).sum();
                        let n = segments[seg] as usize;
                        let types = self.parse_type_list()?;
                        self.check_types(&operands[start..start + n], &types)?;
                        pieces.push(Piece::OperandTypes);
                        if self.c.eat_keyword("to") {
                            b.spec.result_types = self.parse_type_list()?;
                            results_seen = true;
                            pieces.push(Piece::ToResults);
                        }
                    } else {
                        if results_seen {
                            return self.c.err_at(p, "result types given twice");
                        }
                        let parens = self.c.peek() == Some(b'(');
                        let list = if parens {
                            self.parse_paren_type_list()?
                        } else {
                            self.parse_type_list()?
                        };
                        if parens && self.c.looking_at("->") {
                            // `: (operand types) -> result types`.
                            self.c.expect("->")?;
                            self.check_types(&operands, &list)?;
                            b.spec.result_types = self.parse_result_types()?;
                            pieces.push(Piece::Signature);
                        } else {
                            b.spec.result_types = list;
                            pieces.push(Piece::Results {
                                arrow: false,
                                parens,
                            });
                        }
                        results_seen = true;
                    }
                }
                Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                    let word = self.c.ident().unwrap_or_default();
                    if word == "loc" && self.c.peek_raw(0) == Some(b'(') {
                        self.c.reset(p);
                        break;
                    }
                    if self.c.peek_raw(0) == Some(b'(') {
                        // `unit_flag_mode([#hivm.unit_flag<..>])`: an
                        // attribute list in a keyword's parentheses (the
                        // custom parsers of fixpipe and mmadL1).
                        let open = self.c.pos();
                        self.c.reset(open + 1);
                        let attr_group = !matches!(self.c.peek(), Some(b'%') | Some(b')'));
                        self.c.reset(open);
                        if attr_group {
                            let text = self.c.balanced()?;
                            let text = format!("{word}{}", self.expand_aliases(text));
                            pieces.push(Piece::Text(text));
                            continue;
                        }
                        let group_pos = self.c.pos();
                        let (seg, typed, attrs) =
                            self.parse_group_with_attrs(&mut segments, &mut operands)?;
                        if attrs.iter().any(|a| !a.is_empty()) {
                            // The custom parser of `hivm.hir.custom` keeps
                            // these as `arg_attrs`, one dictionary per input.
                            let custom =
                                matches!(b.spec.name.as_str(), CUSTOM_OP | CUSTOM_MACRO_OP);
                            if word != "ins" || !custom {
                                return self.c.err_at(
                                    group_pos,
                                    "per-operand attributes are only allowed in ins(...) of hivm.hir.custom/custom_macro",
                                );
                            }
                            let dicts = attrs.into_iter().map(Attribute::Dict).collect();
                            b.spec.attrs.set(ARG_ATTRS, Attribute::Array(dicts));
                        }
                        pieces.push(Piece::Group {
                            keyword: word.to_string(),
                            segment: seg,
                            typed,
                        });
                        continue;
                    }
                    let after = self.c.pos();
                    if self.c.peek() == Some(b'=') && !self.c.looking_at("==") {
                        self.c.expect("=")?;
                        if self.c.peek() == Some(b'%') {
                            let (o, typed) = self.parse_opt_typed_operand()?;
                            pieces.push(Piece::OperandClause {
                                name: word.to_string(),
                                segment: segments.len(),
                                typed,
                            });
                            segments.push(1);
                            operands.push(o);
                        } else {
                            let a = self.parse_attribute()?;
                            if b.spec.attrs.set(word, a).is_some() {
                                return self.c.err_at(p, format!("duplicate attribute '{word}'"));
                            }
                            pieces.push(Piece::AttrClause {
                                name: word.to_string(),
                            });
                        }
                        continue;
                    }
                    self.c.reset(after);
                    if word.contains('.') || matches!(word, "return" | "call" | "module" | "func") {
                        self.c.reset(p);
                        break;
                    }
                    if self.c.peek() == Some(b'%') && !self.next_is_result_binding() {
                        // `pad_value %v : T`: a keyword taking one operand.
                        let (o, typed) = self.parse_opt_typed_operand()?;
                        pieces.push(Piece::KeywordOperand {
                            name: word.to_string(),
                            segment: segments.len(),
                            typed,
                        });
                        segments.push(1);
                        operands.push(o);
                        continue;
                    }
                    // Keep the whitespace after the word for the next piece.
                    self.c.reset(after);
                    glue(&mut pieces);
                    pieces.push(Piece::Text(word.to_string()));
                }
                Some(_) => break,
            }
        }
        while pieces.last() == Some(&Piece::NoSpace) {
            pieces.pop();
        }
        b.spec.operands = values(&operands);
        b.spec.segments = segments;
        b.spec.syntax = Some(Box::new(Syntax { pieces }));
        if b.spec.name == "scope.scope" {
            // Its terminator is implicit (the printer leaves out an empty
            // `scope.return`): added when the text omits it.
            for &r in &b.regions {
                self.ensure_terminator(r, "scope.return");
            }
        }
        Ok(())
    }

    /// Whether the cursor is at `%name =` / `%name, ...` / `%name:N =`:
    /// the results of the next op rather than an operand.
    fn next_is_result_binding(&mut self) -> bool {
        let save = self.c.pos();
        let _ = self.c.eat("%");
        let _ = self.c.suffix_id();
        if self.c.peek_raw(0) == Some(b':')
            && self.c.peek_raw(1).is_some_and(|b| b.is_ascii_digit())
        {
            self.c.reset(self.c.pos() + 1);
            let _ = self.c.integer();
        }
        let r = match self.c.peek() {
            Some(b'=') => !self.c.looking_at("=="),
            Some(b',') => true,
            _ => false,
        };
        self.c.reset(save);
        r
    }

    /// `%v` or `%v : T` (the operand of a keyword or `name =` clause);
    /// returns the operand and whether its type was written. Without a type
    /// the whitespace after `%v` is left for the next piece.
    pub(crate) fn parse_opt_typed_operand(&mut self) -> PResult<(Operand, bool)> {
        let o = self.parse_operand()?;
        let before_colon = self.c.pos();
        if self.c.eat(":") {
            let t = self.parse_type()?;
            self.check_types(std::slice::from_ref(&o), &[t])?;
            return Ok((o, true));
        }
        self.c.reset(before_colon);
        Ok((o, false))
    }

    /// `[%a, %b]` (possibly empty brackets).
    pub(crate) fn parse_bracket_operands(&mut self) -> PResult<Vec<Operand>> {
        self.c.expect("[")?;
        let ops = self.parse_operand_list()?;
        self.c.expect("]")?;
        Ok(ops)
    }

    /// An optional `[%a, %b]` (the symbol operands of `affine.apply` and
    /// `memref.alloc`); empty when absent.
    pub(crate) fn parse_opt_bracket_operands(&mut self) -> PResult<Vec<Operand>> {
        if self.c.peek() != Some(b'[') {
            return Ok(Vec::new());
        }
        self.parse_bracket_operands()
    }

    /// The optional `, %mask` of a vector transfer: zero or one operand.
    pub(crate) fn parse_opt_mask(&mut self) -> PResult<Vec<Operand>> {
        if !self.c.eat(",") {
            return Ok(Vec::new());
        }
        Ok(vec![self.parse_operand()?])
    }

    /// An integer array attribute (`[1, 0]` or `array<i64: 1, 0>`); `msg`
    /// is the error reported at its start when it is anything else.
    pub(crate) fn parse_int_array(&mut self, msg: &str) -> PResult<Vec<i64>> {
        self.c.skip_ws();
        let p = self.c.pos();
        let attr = self.parse_attribute()?;
        match attr.as_int_array() {
            Some(v) => Ok(v),
            None => self.c.err_at(p, msg),
        }
    }

    /// The `: T <word> R` trailer of a view-like op whose source is `src`:
    /// checks `src` has type `T`, returns the result type `R`.
    pub(crate) fn parse_view_types(&mut self, src: &Operand, word: &str) -> PResult<Type> {
        self.c.expect(":")?;
        let sty = self.parse_type()?;
        self.check_types(std::slice::from_ref(src), &[sty])?;
        self.c.expect(word)?;
        self.parse_type()
    }

    /// `(%a, %b : T, U)`; returns the new segment and whether types were written.
    pub(crate) fn parse_group(
        &mut self,
        segments: &mut Vec<u32>,
        operands: &mut Vec<Operand>,
    ) -> PResult<(usize, bool)> {
        let p = self.c.pos();
        let (seg, typed, attrs) = self.parse_group_with_attrs(segments, operands)?;
        if attrs.iter().any(|a| !a.is_empty()) {
            return self
                .c
                .err_at(p, "per-operand attributes are only allowed in ins(...) of hivm.hir.custom/custom_macro");
        }
        Ok((seg, typed))
    }

    /// `( operands [: type [{attr-dict}], ...] )`: an operand group whose
    /// types may each carry an attribute dictionary (the `ins` of
    /// `hivm.hir.custom`, e.g. `ins(%a : T {inplace_outs = 0 : i32})`).
    /// Returns the segment, whether types were written, and one dictionary
    /// per operand (empty when none was written).
    pub(crate) fn parse_group_with_attrs(
        &mut self,
        segments: &mut Vec<u32>,
        operands: &mut Vec<Operand>,
    ) -> PResult<(usize, bool, Vec<NamedAttrs>)> {
        self.c.expect("(")?;
        let ops = self.parse_operand_list()?;
        let mut typed = false;
        let mut attrs = Vec::new();
        if self.c.eat(":") {
            let mut types = Vec::new();
            loop {
                types.push(self.parse_type()?);
                attrs.push(if self.c.peek() == Some(b'{') {
                    self.parse_dict()?
                } else {
                    NamedAttrs::new()
                });
                if !self.c.eat(",") {
                    break;
                }
            }
            self.check_types(&ops, &types)?;
            typed = true;
        }
        self.c.expect(")")?;
        segments.push(ops.len() as u32);
        operands.extend(ops);
        Ok((segments.len() - 1, typed, attrs))
    }

    /// After `{`: a region holds ops, an attribute dictionary holds
    /// `name = value` / `name,` / `name}` entries.
    fn looks_like_region(&mut self) -> bool {
        let save = self.c.pos();
        let _ = self.c.eat("{");
        let r = match self.c.peek() {
            Some(b'%') | Some(b'^') => true,
            Some(b'"') => {
                let _ = self.c.string();
                self.c.peek_raw(0) == Some(b'(')
            }
            Some(b'}') => false,
            _ => match self.c.ident() {
                // `{name}` is a unit attribute unless `name` is an op the
                // reader knows (a terminator such as `scope.return`).
                Some(word) => match self.c.peek() {
                    Some(b'=') | Some(b',') => false,
                    Some(b'}') => {
                        custom_form(word).is_some()
                            || word == "return"
                            || word.ends_with(".return")
                            || word.ends_with(".yield")
                    }
                    _ => true,
                },
                None => false,
            },
        };
        self.c.reset(save);
        r
    }
}
