//! Reading an op by its declarative format ([`crate::ir::format`]): every
//! `hivm`/`ave` op but the three with custom parsers (`fixpipe`, `custom`,
//! `custom_macro`, still read by the structured reader of `ops.rs`, which
//! keeps their pieces in written order; the per-input dictionaries of the
//! custom ops' `ins(...)` are real `arg_attrs`), and the
//! upstream ops of [`crate::ir::upstream`]. An optional group is taken
//! when the next token can start its first element, as MLIR's generated
//! parsers decide.
//!
//! The result mirrors MLIR's: one operand segment per ODS operand (in ODS
//! order, whatever the textual order), attributes under their ODS names
//! with MLIR's storage (enums as `#dialect.mnemonic<value>`, dense arrays
//! as `array<i64: ..>`), and result types from the format or, when the
//! format omits them, from the op's type-equality traits.

use crate::ir::format::{Elem, Var};
use crate::ir::ods::{Arity, OdsAttr, OdsOp};
use crate::ir::{Attribute, BlockId, Type, DYNAMIC};
use crate::parse::cursor::PResult;
use crate::parse::{Operand, Parser};

/// What the reader has seen of one op so far.
pub(crate) struct OdsRead {
    op: &'static OdsOp,
    operands: Vec<Vec<Operand>>,
    operand_types: Vec<Option<Vec<Type>>>,
    result_types: Vec<Option<Vec<Type>>>,
    all_operands: Option<Vec<Operand>>,
    all_operand_types: Option<Vec<Type>>,
    all_result_types: Option<Vec<Type>>,
    successors: Vec<Option<BlockId>>,
    /// Attributes in the order read.
    pub(crate) attrs: Vec<(String, Attribute)>,
}

/// The read op: operands (flattened), segment sizes, result types.
pub(crate) struct OdsParts {
    pub operands: Vec<Operand>,
    pub segments: Vec<u32>,
    pub result_types: Vec<Type>,
    pub successors: Vec<BlockId>,
}

impl Parser<'_> {
    /// Reads the text after the op name by `elems`, the format of `op`.
    pub(crate) fn parse_ods(
        &mut self,
        op: &'static OdsOp,
        elems: &[Elem],
    ) -> PResult<(OdsParts, Vec<(String, Attribute)>)> {
        let mut st = OdsRead {
            op,
            operands: vec![Vec::new(); op.operands.len()],
            operand_types: vec![None; op.operands.len()],
            result_types: vec![None; op.results.len()],
            all_operands: None,
            all_operand_types: None,
            all_result_types: None,
            successors: vec![None; op.successors.len()],
            attrs: Vec::new(),
        };
        self.ods_elems(&mut st, elems)?;
        let parts = self.ods_finish(&mut st)?;
        Ok((parts, st.attrs))
    }

    fn ods_elems(&mut self, st: &mut OdsRead, elems: &[Elem]) -> PResult<()> {
        for e in elems {
            self.ods_elem(st, e)?;
        }
        Ok(())
    }

    fn ods_elem(&mut self, st: &mut OdsRead, e: &Elem) -> PResult<()> {
        match e {
            Elem::Literal(l) => self.ods_literal(l),
            Elem::Var(Var::Operand(i)) => {
                let ops = match st.op.operands[*i].1 {
                    Arity::Single => vec![self.parse_operand()?],
                    Arity::Optional => {
                        if self.c.peek() == Some(b'%') {
                            vec![self.parse_operand()?]
                        } else {
                            Vec::new()
                        }
                    }
                    Arity::Variadic => self.parse_operand_list()?,
                };
                st.operands[*i] = ops;
                Ok(())
            }
            Elem::Var(Var::AllOperands) => {
                st.all_operands = Some(self.parse_operand_list()?);
                Ok(())
            }
            Elem::Var(Var::Attr(a)) => {
                let v = self.ods_attr(a)?;
                st.attrs.push((a.name.to_string(), v));
                Ok(())
            }
            Elem::Var(Var::Successor(i)) => {
                let b = self.parse_successor()?;
                st.successors[*i] = Some(b);
                Ok(())
            }
            Elem::Var(Var::Result(_) | Var::AllResults | Var::Region(_)) => self
                .c
                .err("this op's format is not supported by the reader"),
            Elem::Type(v) => self.ods_type(st, *v),
            Elem::FunctionalType(a, r) => {
                let inputs = self.parse_paren_type_list()?;
                self.c.expect("->")?;
                let outputs = self.parse_result_types()?;
                self.ods_set_types(st, *a, inputs)?;
                self.ods_set_types(st, *r, outputs)
            }
            Elem::AttrDict(keyword) => {
                if *keyword && !self.c.eat_keyword("attributes") {
                    return Ok(());
                }
                if self.c.peek() == Some(b'{') {
                    let d = self.parse_dict()?;
                    for (n, a) in d.iter() {
                        st.attrs.push((n.to_string(), a.clone()));
                    }
                }
                Ok(())
            }
            Elem::Custom(name, vars) => self.ods_custom(st, name, vars),
            Elem::Optional { elems, .. } => {
                if self.ods_can_start(&elems[0]) {
                    self.ods_elems(st, elems)?;
                }
                Ok(())
            }
        }
    }

    fn ods_literal(&mut self, l: &str) -> PResult<()> {
        if l.is_empty() || l == " " {
            return Ok(());
        }
        let ok = if l.as_bytes()[0].is_ascii_alphabetic() || l.starts_with('_') {
            self.c.eat_keyword(l)
        } else {
            self.c.eat(l)
        };
        if ok {
            Ok(())
        } else {
            let found = self.c.describe_next();
            self.c.err(format!("expected '{l}', found {found}"))
        }
    }

    /// Whether the optional group starting with `e` is present.
    fn ods_can_start(&mut self, e: &Elem) -> bool {
        match e {
            Elem::Literal(l) if l.is_empty() || *l == " " => true,
            Elem::Literal(l) => {
                if l.as_bytes()[0].is_ascii_alphabetic() || l.starts_with('_') {
                    self.c.looking_at_keyword(l)
                } else if *l == "-" {
                    self.c.looking_at("-") && !self.c.looking_at("->")
                } else {
                    self.c.looking_at(l)
                }
            }
            Elem::Var(Var::Operand(_) | Var::AllOperands) => self.c.peek() == Some(b'%'),
            Elem::Var(Var::Successor(_)) => self.c.peek() == Some(b'^'),
            Elem::Var(Var::Attr(a)) => self.attr_can_start(a),
            Elem::Type(_) | Elem::FunctionalType(..) => {
                matches!(self.c.peek(), Some(b) if b.is_ascii_alphabetic() || b == b'!' || b == b'(')
            }
            Elem::Custom(..) => self.c.peek() == Some(b'['),
            Elem::Optional { elems, .. } => self.ods_can_start(&elems[0]),
            Elem::AttrDict(_) | Elem::Var(_) => false,
        }
    }

    fn attr_can_start(&mut self, a: &OdsAttr) -> bool {
        let k = a.kind;
        match self.c.peek() {
            None => false,
            Some(b'<') => k.starts_with("enum:"),
            Some(b'#') => k.starts_with("enum:") || k == "any",
            Some(b'[') => k.starts_with("array:") || k == "any",
            Some(b'"') => k == "str" || k == "any",
            Some(b'@') => k == "symbol" || k == "any",
            Some(b) if b.is_ascii_digit() || b == b'-' => {
                k.starts_with("int:") || k.starts_with("float:") || k == "any"
            }
            Some(_) => {
                if k == "bool" {
                    self.c.looking_at_keyword("true") || self.c.looking_at_keyword("false")
                } else {
                    k == "type"
                }
            }
        }
    }

    /// Reads an attribute spelled the way its kind prints inside a format.
    fn ods_attr(&mut self, a: &OdsAttr) -> PResult<Attribute> {
        self.c.skip_ws();
        let p = self.c.pos();
        let k = a.kind;
        if let Some(full) = k.strip_prefix("enum:") {
            let (dialect, mnemonic) = full.split_once('.').unwrap_or((full, ""));
            if self.c.peek() == Some(b'#') {
                return self.parse_attribute();
            }
            if self.c.peek() != Some(b'<') {
                let found = self.c.describe_next();
                return self.c.err(format!(
                    "expected '<' to start the {full} attribute '{}', found {found}",
                    a.name
                ));
            }
            let text = self.c.balanced()?;
            let inner = text[1..text.len() - 1].trim();
            return Ok(Attribute::dialect(dialect, mnemonic, Some(inner)));
        }
        if let Some(elem) = k.strip_prefix("array:") {
            let values =
                self.parse_int_array(&format!("expected an integer array for '{}'", a.name))?;
            let elem = crate::parse::types::scalar_type(elem).unwrap_or_else(Type::i64);
            return Ok(Attribute::DenseArray { elem, values });
        }
        if let Some(ty) = k.strip_prefix("int:") {
            let neg = self.c.eat("-");
            let Some(v) = self.c.integer() else {
                let found = self.c.describe_next();
                return self.c.err_at(
                    p,
                    format!("expected integer value for '{}', found {found}", a.name),
                );
            };
            let ty = crate::parse::types::scalar_type(ty).unwrap_or_else(Type::i64);
            return Ok(Attribute::Integer {
                value: if neg { -v } else { v },
                ty,
            });
        }
        match k {
            "bool" => {
                if self.c.eat_keyword("true") {
                    Ok(Attribute::Bool(true))
                } else if self.c.eat_keyword("false") {
                    Ok(Attribute::Bool(false))
                } else {
                    let found = self.c.describe_next();
                    self.c.err(format!(
                        "expected 'true' or 'false' for '{}', found {found}",
                        a.name
                    ))
                }
            }
            "unit" => Ok(Attribute::Unit),
            "str" => Ok(Attribute::String(self.c.string()?)),
            "type" => Ok(Attribute::Type(self.parse_type()?)),
            _ => {
                let attr = self.parse_attribute()?;
                Ok(match (k.strip_prefix("float:"), attr) {
                    (Some(ty), Attribute::Float { bits, .. }) => Attribute::Float {
                        bits,
                        ty: crate::parse::types::scalar_type(ty).unwrap_or(Type::Index),
                    },
                    (Some(ty), Attribute::Integer { value, .. }) => Attribute::float(
                        value as f64,
                        crate::parse::types::scalar_type(ty).unwrap_or(Type::Index),
                    ),
                    (_, attr) => attr,
                })
            }
        }
    }

    fn ods_type(&mut self, st: &mut OdsRead, v: Var) -> PResult<()> {
        match v {
            Var::Operand(i) => {
                let n = st.operands[i].len();
                let types = match st.op.operands[i].1 {
                    Arity::Single => vec![self.parse_type()?],
                    _ if n > 0 => {
                        let mut t = vec![self.parse_type()?];
                        for _ in 1..n {
                            self.c.expect(",")?;
                            t.push(self.parse_type()?);
                        }
                        t
                    }
                    _ => Vec::new(),
                };
                self.ods_set_types(st, v, types)
            }
            Var::Result(i) => {
                let types = match st.op.results[i].1 {
                    Arity::Single => vec![self.parse_type()?],
                    _ => self.parse_type_list()?,
                };
                st.result_types[i] = Some(types);
                Ok(())
            }
            Var::AllOperands | Var::AllResults => {
                let types = self.parse_type_list()?;
                self.ods_set_types(st, v, types)
            }
            _ => self.c.err("type() of an attribute or region"),
        }
    }

    fn ods_set_types(&mut self, st: &mut OdsRead, v: Var, types: Vec<Type>) -> PResult<()> {
        match v {
            Var::Operand(i) => {
                self.check_types(&st.operands[i], &types)?;
                st.operand_types[i] = Some(types);
            }
            Var::Result(i) => st.result_types[i] = Some(types),
            Var::AllOperands => {
                if let Some(ops) = &st.all_operands {
                    self.check_types(ops, &types)?;
                }
                st.all_operand_types = Some(types);
            }
            Var::AllResults => st.all_result_types = Some(types),
            _ => {}
        }
        Ok(())
    }

    /// `open %a, 4, -1 close`: a list of SSA values and integers, as the
    /// static values ([`DYNAMIC`] for a value) and the values.
    pub(crate) fn parse_mixed_list_in(
        &mut self,
        open: &str,
        close: &str,
    ) -> PResult<(Vec<i64>, Vec<Operand>)> {
        self.c.expect(open)?;
        let (mut statics, mut dynamics) = (Vec::new(), Vec::new());
        if self.c.eat(close) {
            return Ok((statics, dynamics));
        }
        loop {
            if self.c.peek() == Some(b'%') {
                dynamics.push(self.parse_operand()?);
                statics.push(DYNAMIC);
            } else {
                self.c.skip_ws();
                let at = self.c.pos();
                let neg = self.c.eat("-");
                let Some(v) = self.c.integer() else {
                    let found = self.c.describe_next();
                    return self
                        .c
                        .err(format!("expected SSA value or integer, found {found}"));
                };
                match super::static_index(if neg { -v } else { v }) {
                    Ok(v) => statics.push(v),
                    Err(why) => return self.c.err_at(at, why),
                }
            }
            if self.c.eat(close) {
                return Ok((statics, dynamics));
            }
            self.c.expect(",")?;
        }
    }

    /// `DynamicIndexList` (`[%a, 4]`), `EventID` and `FlagID` (a static
    /// attribute or an SSA value).
    fn ods_custom(&mut self, st: &mut OdsRead, name: &str, vars: &[Var]) -> PResult<()> {
        match (name, vars) {
            ("DynamicIndexList", [Var::Operand(d), Var::Attr(s)]) => {
                let (statics, dynamics) = self.parse_mixed_list_in("[", "]")?;
                st.operands[*d] = dynamics;
                st.attrs
                    .push((s.name.to_string(), Attribute::dense_i64(statics)));
                Ok(())
            }
            ("EventID" | "FlagID", [Var::Attr(s), Var::Operand(d)]) => {
                if self.c.peek() == Some(b'%') {
                    st.operands[*d] = vec![self.parse_operand()?];
                } else {
                    let v = self.ods_attr(s)?;
                    st.attrs.push((s.name.to_string(), v));
                }
                Ok(())
            }
            _ => self.c.err(format!("unsupported custom directive '{name}'")),
        }
    }

    /// Checks operand types the format left implicit and infers result
    /// types the format omits.
    fn ods_finish(&mut self, st: &mut OdsRead) -> PResult<OdsParts> {
        let op = st.op;
        if let Some(all) = st.all_operands.take() {
            // `operands`: split over the ODS operands in order (only ops
            // whose operands are all single use this directive).
            for (i, o) in all.into_iter().enumerate() {
                if let Some(seg) = st.operands.get_mut(i) {
                    seg.push(o);
                }
            }
        }
        if let Some(types) = st.all_result_types.take() {
            let mut it = types.into_iter();
            for (i, (_, arity)) in op.results.iter().enumerate() {
                st.result_types[i] = Some(match arity {
                    Arity::Variadic => it.by_ref().collect(),
                    _ => it.next().into_iter().collect(),
                });
            }
        }
        let mut result_types = Vec::new();
        for i in 0..op.results.len() {
            if st.result_types[i].is_none() {
                st.result_types[i] = self.ods_infer(st, i);
            }
            match (&st.result_types[i], op.results[i].1) {
                (Some(t), _) => result_types.extend(t.iter().cloned()),
                (None, Arity::Single) => {
                    return self.c.err(format!(
                        "cannot infer the type of result '{}' of '{}'",
                        op.results[i].0, op.name
                    ))
                }
                (None, _) => {}
            }
        }
        let mut operands = Vec::new();
        let mut segments = Vec::new();
        for (i, seg) in st.operands.iter().enumerate() {
            if op.operands[i].1 == Arity::Single && seg.len() != 1 {
                return self.c.err(format!(
                    "'{}' needs operand '{}'",
                    op.name, op.operands[i].0
                ));
            }
            segments.push(seg.len() as u32);
            operands.extend(seg.iter().cloned());
        }
        let mut successors = Vec::new();
        for (i, b) in st.successors.iter().enumerate() {
            match b {
                Some(b) => successors.push(*b),
                None => {
                    return self.c.err(format!(
                        "'{}' needs successor '{}'",
                        op.name, op.successors[i]
                    ))
                }
            }
        }
        Ok(OdsParts {
            operands,
            segments,
            result_types,
            successors,
        })
    }

    /// The type of result `i` from an `AllTypesMatch` group.
    fn ods_infer(&self, st: &OdsRead, i: usize) -> Option<Vec<Type>> {
        let name = st.op.results[i].0;
        let group = st.op.same_types.iter().find(|g| g.contains(&name));
        let Some(group) = group else {
            let types: Vec<&Type> = st
                .operands
                .iter()
                .flat_map(|seg| seg.iter().map(|o| self.m.value_type(o.v)))
                .collect();
            return crate::ir::upstream::infer(st.op.name, i, &types, &st.attrs).map(|t| vec![t]);
        };
        for member in group.iter() {
            if let Some(j) = st.op.operand_index(member) {
                if let Some(v) = st.operands[j].first() {
                    return Some(vec![self.m.value_type(v.v).clone()]);
                }
            }
            if let Some(j) = st.op.result_index(member) {
                if let Some(t) = &st.result_types[j] {
                    return Some(t.clone());
                }
            }
        }
        None
    }
}
